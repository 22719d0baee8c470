/** What the composition root tells the UI routes (ops/buildServer.ts). */
export type UiOptions = {
  /** The built UI (ui/dist): index.html and assets/. */
  readonly distDir: string;
  /** `SERVICE_MANAGEMENT_URL`: linked in the navigation for the admins listed in `SERVICE_ADMINS`. */
  readonly managementUrl: string | null;
  /** Lower-cased emails of `SERVICE_ADMINS`. */
  readonly managementAdmins: readonly string[];
  /** The ports OTLP is served on besides the main one, once they listen (null before). */
  readonly otlpPorts: () => { readonly http: number; readonly grpc: number } | null;
  /** `SERVICE_PROJECT_NAME`: where spans that name no project go. */
  readonly defaultProjectName: string;
};
