/** What the annotation panels, chips and settings work with (as the GraphQL API answers). */
export type AnnotatorKind = 'HUMAN' | 'LLM' | 'CODE';
export type AnnotationTarget = 'span' | 'trace' | 'session';

export type Annotation = {
  readonly id: string;
  readonly name: string;
  readonly label: string | null;
  readonly score: number | null;
  readonly explanation: string | null;
  readonly annotatorKind: AnnotatorKind;
  readonly source: 'API' | 'APP';
  readonly userId: string | null;
  readonly authorName: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
};

/** The few fields a table chip shows. */
export type AnnotationChipData = Pick<Annotation, 'name' | 'label' | 'score' | 'annotatorKind'>;

export type ConfigType = 'CATEGORICAL' | 'CONTINUOUS' | 'FREEFORM';
export type OptimizationDirection = 'MINIMIZE' | 'MAXIMIZE' | 'NONE';

export type CategoricalValue = { readonly label: string; readonly score: number | null };

export type AnnotationConfig = {
  readonly id: string;
  readonly name: string;
  readonly type: ConfigType;
  readonly description: string | null;
  readonly optimizationDirection: OptimizationDirection | null;
  readonly values: readonly CategoricalValue[] | null;
  readonly lowerBound: number | null;
  readonly upperBound: number | null;
  readonly threshold: number | null;
};

export type AnnotationConfigInput = {
  name: string;
  type: ConfigType;
  description: string | null;
  optimizationDirection: OptimizationDirection | null;
  values: CategoricalValue[] | null;
  lowerBound: number | null;
  upperBound: number | null;
  threshold: number | null;
};

export type AnnotationSummary = {
  readonly name: string;
  readonly count: number;
  readonly meanScore: number | null;
  readonly labels: readonly { readonly label: string; readonly count: number }[];
};
