/** The messages between the code sandbox (codeSandbox.ts) and its worker thread (codeSandboxWorker.ts). */
export type SandboxLimits = {
  /** Wall time for one evaluation, parse included; past it the engine is interrupted. */
  readonly timeoutMs: number;
  /** The engine's heap for one evaluation. */
  readonly memoryBytes: number;
};

export type SandboxRequest =
  | { readonly kind: 'parse'; readonly id: number; readonly source: string }
  | { readonly kind: 'run'; readonly id: number; readonly source: string; readonly argsJson: string; readonly limits: SandboxLimits };

/** `value` is the JSON of what `evaluate` returned (or resolved to); `error` a one-line reason. */
export type SandboxReply =
  | { readonly id: number; readonly ok: true; readonly json: string | null }
  | { readonly id: number; readonly ok: false; readonly error: string };

/** The module name evaluator code is compiled as (its errors name it). */
export const EVALUATOR_MODULE = 'evaluator.js';
