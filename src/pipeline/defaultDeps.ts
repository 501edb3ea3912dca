// The pipeline's real parts in one place, each overridable: the stages in the
// order runPipeline calls them, and the I/O they use. main.ts passes what
// depends on the settings (upstream, store), tests pass their fixtures.

import { randomUUID } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { createTokenCounter, warmTokenizer } from '../budget/index.ts';
import { loadPlans } from '../config/plans.ts';
import { createRedactor } from '../redact/createRedactor.ts';
import { silentLogger } from '../shared/logger.ts';
import type { AuditStore, Logger, Upstream } from '../shared/ports.ts';
import type { Calibration } from '../shared/types.ts';
import { createSourceSet, defaultSourceDeps, looksLikeStackTrace } from '../sources/index.ts';
import { assemble } from './assembleStage.ts';
import { budget } from './budgetStage.ts';
import { collect } from './collect.ts';
import { ConversationCache } from './conversations.ts';
import { forward } from './forwardStage.ts';
import { openIndexDatabase } from './indexDatabase.ts';
import { redactingEmbedder } from './indexEmbedder.ts';
import { record } from './recordStage.ts';
import { redact } from './redactStage.ts';
import { select } from './selectStage.ts';
import type { PipelineDeps, PipelineSettings, PipelineStages, WorkspaceFs } from './types.ts';

/** The real stages: select → collect → redact → budget → assemble → forward → record. */
export const defaultStages: PipelineStages = { select, collect, redact, budget, assemble, forward, record };

/** The file system `X-Ctx-Workspace` is checked against. */
export const nodeWorkspaceFs: WorkspaceFs = {
  realpath: (path) => realpathSync(path),
  isDirectory: (path) => statSync(path).isDirectory(),
};

/** The audit store, which also keeps each model's calibration. */
export interface CalibratingStore extends AuditStore {
  getCalibration(model: string): Calibration | undefined;
  saveCalibration(model: string, value: Calibration): unknown;
}

export interface PipelineDepsInput {
  settings: PipelineSettings;
  upstream: Upstream;
  store: CalibratingStore;
  logger?: Logger | undefined;
  /**
   * Compile the redaction rules and the tokenizer's regexes in the background after start (the server),
   * so that no request pays for their first use (redact/warmRegexes.ts, budget warmTokenizer).
   */
  warm?: boolean | undefined;
  /** Replaces any default part. */
  overrides?: Partial<Omit<PipelineDeps, 'stages'>> | undefined;
  /** Replaces any default stage (a custom collect, a recording forward …). */
  stages?: Partial<PipelineStages> | undefined;
}

export async function createPipelineDeps(input: PipelineDepsInput): Promise<PipelineDeps> {
  const { store, overrides = {} } = input;
  const logger = input.logger ?? silentLogger;
  const redactor =
    overrides.redactor ?? (await createRedactor({ warm: input.warm, extraNeverRead: input.settings.neverRead }));
  if (input.warm) setTimeout(warmTokenizer, 0);
  // Files that are secrets by nature are never opened: the sources ask the redactor's list.
  const sourceSet = overrides.sources
    ? undefined
    : createSourceSet(
        defaultSourceDeps({
          isNeverRead: (relativePath) => redactor.isNeverRead(relativePath),
          allowedRoots: input.settings.allowedRoots,
          logger,
          // Retrieval's persistent index, `.ctxproxy/index.db` in each workspace it searches.
          openIndex: (root) => openIndexDatabase(root, logger),
          // Semantic retrieval, when the user names an embedding model: chunks redacted, then embedded.
          embedder: input.settings.embedModel
            ? redactingEmbedder(input.settings.embedModel, input.upstream, redactor)
            : undefined,
        }),
        // The server starts the symbol index of its workspace in the background, before the first question.
        input.warm ? { warmWorkspace: input.settings.workspace } : {},
      );
  return {
    stages: { ...defaultStages, ...input.stages },
    upstream: input.upstream,
    store,
    settings: input.settings,
    sources: overrides.sources ?? sourceSet?.sources ?? [],
    redactor,
    plans: loadPlans(),
    looksLikeStackTrace,
    conversations: new ConversationCache(),
    tokenCounter: createTokenCounter(),
    loadedNumCtx: new Map(),
    calibration: {
      get: (model) => store.getCalibration(model),
      set: (model, value) => {
        store.saveCalibration(model, value);
      },
    },
    fs: nodeWorkspaceFs,
    logger,
    now: Date.now,
    newId: newSnapshotId,
    settle: sourceSet ? (workspace) => sourceSet.settle(workspace) : undefined,
    close: () => sourceSet?.close(),
    ...overrides,
  };
}

/**
 * Time-ordered and unguessable: `s_` + milliseconds in base 36 + the first 16 hex digits of a random
 * UUID (60 random bits; randomUUID draws from a pre-filled entropy cache, randomBytes makes a call per id).
 */
export function newSnapshotId(): string {
  return `s_${Date.now().toString(36)}${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}
