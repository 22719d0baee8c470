import { messageOf } from '../api/apiError.ts';
import { type DatasetChoice, mappingFor } from './datasetMapping.ts';
import { type ExampleRunEvent, type PlaygroundExperiment, runPlaygroundExperiment } from './playgroundApi.ts';
import { draftRequest, type PlaygroundDraft, templateTexts } from './playgroundDraft.ts';
import { templateVariables } from './templateVariables.ts';

/** One variant's run over a dataset version: the experiment, each example's run as it finishes. */
export class DatasetRun {
  experiment = $state<PlaygroundExperiment | null>(null);
  total = $state(0);
  /** By example index (the server runs several at once, so they arrive out of order). */
  runs = $state<Record<number, ExampleRunEvent>>({});
  running = $state(false);
  error = $state<string | null>(null);
  readonly datasetId: string;
  #controller: AbortController | null = null;

  constructor(datasetId: string) {
    this.datasetId = datasetId;
  }

  get finished(): number {
    return Object.keys(this.runs).length;
  }

  get failed(): number {
    return Object.values(this.runs).filter((r) => r.error !== null).length;
  }

  /** Starts the experiment; resolves when the server has run every example (or refused, or was stopped). */
  async start(draft: PlaygroundDraft, values: Record<string, string>, choice: DatasetChoice): Promise<void> {
    const request = draftRequest(draft);
    if (!request.ok) {
      this.error = request.problem;
      return;
    }
    // Only this variant's own variables: another variant's are not in its template.
    const own = templateVariables(draft.templateFormat, templateTexts(draft));
    this.running = true;
    this.#controller = new AbortController();
    try {
      await runPlaygroundExperiment(
        {
          draft,
          variables: Object.fromEntries(own.map((n) => [n, values[n] ?? ''])),
          messages: request.messages,
          parameters: request.parameters,
          tools: request.tools,
          datasetId: choice.datasetId,
          versionId: choice.versionId,
          mapping: mappingFor(choice, own),
        },
        (event) => {
          if (event.type === 'experiment') {
            this.experiment = event.experiment;
            this.total = event.example_count;
          } else if (event.type === 'run') this.runs[event.index] = event;
          else if (event.type === 'done') {
            if (event.experiment !== null) this.experiment = event.experiment;
          } else if (event.type === 'error') this.error = event.message;
        },
        this.#controller.signal,
      );
    } catch (e) {
      if (!this.#controller.signal.aborted) this.error = messageOf(e);
    } finally {
      this.running = false;
      this.#controller = null;
    }
  }

  stop(): void {
    this.#controller?.abort();
  }
}
