// Generated from sidecar/zettelclaw/protocol/protocol.schema.json by
// `python -m zettelclaw.protocol.typescript --write`: do not edit
// (tests/protocol/test_typescript.py fails when this file is not what the schema generates).
// The sidecar's pydantic models are the source: protocol/params/ and protocol/results/,
// paired by protocol/contract.py.

export type Admission = {
  channels: string[];
  senders: string[];
  sessionKeys: string[];
  agents: string[];
  refused: number;
  refusedSessions: number;
};

export type After = {
  key: string | null;
  timestamp: string | null;
};

export type AgentRow = {
  agentId: string;
  memory: string;
  open: boolean;
  home: string;
  workspace: string | null;
  logBytes: number;
  entries: number | null;
};

export type AgentWorkspace = {
  agentId: string;
  workspace: string;
};

export type AgentsList = {
  agents: AgentRow[];
};

export type AgentsListParams = Record<string, never>;

/** ``agents.register``: each agent's workspace, as the host resolves it. */
export type AgentsRegisterParams = {
  agents: AgentWorkspace[];
};

export type AgentsRegistered = {
  changed: string[];
  refused?: Refusal[] | null;
  agents: AgentRow[];
  agentsTotal: number;
};

/** One public artifact: a file ``path`` inside ``root`` (both checked by the sidecar). */
export type Artifact = {
  kind: "briefing" | "vault-page" | "log-export";
  root: string;
  path: string;
  absolutePath: string;
  contentType: "markdown" | "json";
  memory: string;
  agentIds: string[];
};

export type ArtifactsList = {
  published: boolean;
  reason?: string | null;
  artifacts: Artifact[];
  leftOut: number;
};

/** ``artifacts.list``: the public artifacts of these agents' memories (absent: every agent the sidecar knows). */
export type ArtifactsListParams = {
  agentIds?: string[] | null;
};

/** The memory's start (``since``) and the sessions the last gateway sweep left out as older than it, for ``zettelclaw import openclaw`` to take (docs/13-import.md). */
export type BeforeInstall = {
  since: string | null;
  sessions: number;
  at: string | null;
  hint: string | null;
};

export type BeforePromptBuildParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  sessionId?: string | null;
  channel?: string | null;
  workspaceDir?: string | null;
};

export type Briefing = {
  path: string;
  dryRun: boolean;
  changed: boolean;
  written: boolean;
  block: string;
  lines: number;
  cut: boolean;
  sections: Record<string, SectionCount>;
  model: BriefingModel;
  memoryMdLines: number;
  warnings: string[];
};

/** ``briefing.generate``: rewrite the generated block of the workspace's MEMORY.md. */
export type BriefingGenerateParams = {
  agentId?: string | null;
  workspaceDir?: string | null;
  dryRun?: boolean;
};

/** The last run as state.json keeps it: what it wrote, or (``ok`` false) what failed. */
export type BriefingLastResult = {
  ok: boolean;
  trigger?: string | null;
  path?: string | null;
  changed?: boolean | null;
  lines?: number | null;
  cut?: boolean | null;
  model?: BriefingModel | null;
  error?: string | null;
};

/** Whether the model answered (``used``), what it gave, why it was not asked (``skipped``) or what failed (``error``). */
export type BriefingModel = {
  used: boolean;
  summaries: number;
  contradictions: number;
  error?: string | null;
  skipped?: string | null;
};

export type BriefingStatus = {
  schedule: string;
  timezone: string;
  lastRun: string | null;
  lastResult: BriefingLastResult | null;
  nextRun: string | null;
  model: string | null;
  memoryMd: string | null;
  memoryMdLines: number | null;
  warnings: string[];
};

/** Model tokens against the budgets (``budget.*``, llm/usage.py): today's use (UTC) of background work (extraction, the briefing, imports' extraction), by purpose. */
export type Budget = {
  dailyTokens: number;
  importTokens: number;
  day: string;
  usedToday: number;
  byPurpose: Record<string, number>;
  calls: number;
  spent: boolean;
};

export type Conversation = {
  sessionId: string | null;
  source: string | null;
  jobId: string | null;
  at: string | null;
  told: boolean;
  entries: ReceiptEntry[];
};

/** A connected host that offers ``embeddings.embed`` (``host.offer``), and what embeds. */
export type EmbeddingHost = {
  client: HostClient;
  provider: string;
  model: string;
};

export type EntryCounts = {
  total: number;
  byType: Record<string, number>;
  replaced: number;
  current: number;
};

/** ``memory.get`` of an entry id: the entry, its older versions (nearest first) and its newer ones up to the current one (nearest first). */
export type EntryWithChain = {
  entry: LogEntry;
  line: number;
  current: boolean;
  replaces: LogEntry[];
  replacedBy: LogEntry[];
};

/** What became of one job's model reply (kept after the job ends): JSON objects read, entries written, what was dropped and why, whether the reply stopped at its token limit (``cut``, after ``continued`` calls to go on; ``looping``: it was repeating itself), whether every object read was held already or repeated (``nothingNew``: the job is done, no entry written), or why no entry could be read from it (``failed``); ``note`` says it in one sentence. ``setAside``: on the local route, the facts of a message read alone that were not about its speaker, named nothing the message names, or reported the talk itself (not counted in ``dropped``). */
export type ExtractionOutcome = {
  at: string | null;
  jobId: string | null;
  sessionId: string | null;
  route: string | null;
  lines: number;
  objects: number;
  entries: number;
  appended: number;
  dropped: number;
  duplicates: number;
  held: number;
  reasons: string[];
  cut: boolean;
  continued: number;
  looping: boolean;
  nothingNew: boolean;
  setAside: number;
  failed: string | null;
  note: string;
};

/** ``status``'s ``extraction``, also in ``jobs.list``. */
export type ExtractionStatus = {
  model: string;
  apiKey: boolean;
  baseUrl: string | null;
  jobs: JobCounts;
  waitingFor: string | null;
  concurrency: number;
  route: Route;
  admission: Admission;
  transcripts: Transcripts;
  budget: Budget;
  beforeInstall: BeforeInstall;
  recent: ExtractionOutcome[];
};

/** ``hook.turnFacts``: the facts are noted for the session's next calls. */
export type FactsNoted = {
  noted: boolean;
};

/** A line of the workspace's memory files that holds forgotten text (the person's file: not edited by a forget, and found by search until it is). */
export type FileCopy = {
  path: string;
  line: number;
  text: string;
  deleted?: boolean;
};

/** ``memory.forget``: what to forget (all the criteria given; ``ids`` any of them), hide or purge, and a dry run that lists exactly what would go. */
export type ForgetParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  ids?: string[] | null;
  session?: string | null;
  subject?: string | null;
  text?: string | null;
  purge?: boolean;
  dryRun?: boolean;
  editFiles?: boolean;
};

/** ``memory.forget`` and ``memory.unforget``: what went (or, on a dry run, would go). */
export type Forgot = {
  action: "hide" | "purge" | "unhide";
  dryRun: boolean;
  by: string;
  entries: ForgotEntry[];
  changed: number;
  removed?: Removed | null;
  briefing?: boolean | null;
  inMemoryFiles?: FileCopy[] | null;
};

export type ForgotEntry = {
  id: string;
  line: number;
  type: string;
  session: string;
  subject: string | null;
  content: string;
  hidden: boolean;
};

export type GatewaySession = {
  agentId?: string | null;
  sessionId: string;
  sessionKey?: string | null;
  updatedAt?: number | string | null;
};

export type GatewayStartParams = {
  sessions?: GatewaySession[];
};

export type GetParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  path: string;
  from?: number;
  lines?: number | null;
  corpus?: "memory" | "wiki" | "all" | null;
};

/** ``hook.sessionEnd`` and ``hook.beforeReset``: a stretch of conversation to extract. */
export type HookTranscriptParams = {
  agentId?: string | null;
  sessionId: string;
  sessionKey?: string | null;
  reason?: string | null;
  messages?: unknown[] | null;
  transcriptPath?: string | null;
  workspaceDir?: string | null;
  readAt?: number | string | null;
  channel?: string | null;
  senderId?: string | null;
};

/** A connected host that offers ``llm.complete`` (``host.offer``). */
export type Host = {
  client: HostClient;
  model?: string | null;
  unusable?: string | null;
};

export type HostClient = {
  name: string;
  version?: string | null;
};

export type HostClientParams = {
  name: string;
  version?: string | null;
};

/** The embedding provider and model a host's ``embeddings.embed`` uses: the sidecar keeps the vectors under ``host:<provider>/<model>`` (another one, new vectors). */
export type HostEmbeddingsParams = {
  provider: string;
  model: string;
};

/** ``host.offer``: what this connection's client can do for the sidecar (llm/host.py). */
export type HostOfferParams = {
  capabilities: string[];
  client?: HostClientParams | null;
  model?: string | null;
  embeddings?: HostEmbeddingsParams | null;
  reason?: string | null;
};

/** ``import.apply``: import for about ``sliceSeconds`` and say how far it got; call again until ``state`` is not ``running``. */
export type ImportApplyParams = {
  agentId?: string | null;
  kind?: string | null;
  path: string;
  since?: string | null;
  until?: string | null;
  budget?: number | null;
  sliceSeconds?: number;
};

export type ImportCost = {
  model: string;
  usd: number | null;
};

export type ImportEstimate = {
  inputTokens: number;
  outputTokens: number;
  tokens: number;
  route: "anthropic" | "host" | "local" | null;
  model: string | null;
  costs: ImportCost[];
  prices: string;
};

/** An entry written since, not by the import, that replaced one the import wrote: it stays (its ``replaces`` now names an entry gone). */
export type ImportKept = {
  id: string;
  content: string;
  replaced: string;
  replacedContent: string;
};

export type ImportListParams = {
  agentId?: string | null;
};

export type ImportPlan = {
  kind: string;
  path: string;
  agent: string;
  conversations: number;
  messages: number;
  notes: number;
  total: number;
  alreadyImported: number;
  alreadyRemembered: number;
  outOfRange: number;
  outOfScope: number;
  problems: ImportProblem[];
  estimate: ImportEstimate;
  budget: number;
  fits: boolean;
  resumes: string | null;
};

/** ``import.plan``: what importing ``path`` would do (``kind``: told by the path when absent; ``since``/``until``: days, UTC, both included; ``budget``: tokens, else ``budget.importTokens``). */
export type ImportPlanParams = {
  agentId?: string | null;
  kind?: string | null;
  path: string;
  since?: string | null;
  until?: string | null;
  budget?: number | null;
};

export type ImportProblem = {
  origin: string;
  message: string;
};

export type ImportProgress = {
  importId: string | null;
  state: "running" | "stopped" | "done";
  stopReason: string | null;
  total: number;
  done: number;
  notes: number;
  conversations: number;
  skipped: number;
  spooledTokens: number;
  budget: number;
  problems: ImportProblem[];
};

export type ImportRollbackParams = {
  agentId?: string | null;
  importId: string;
};

export type ImportRolledBack = {
  importId: string;
  state: "rolledBack";
  entries: number;
  removed: Removed | null;
  kept?: ImportKept[];
};

export type ImportRow = {
  importId: string;
  kind: string;
  path: string;
  agent: string;
  state: "running" | "stopped" | "done" | "rollingBack" | "rolledBack";
  createdAt: string;
  updatedAt: string;
  notes: number;
  conversations: number;
  spooledTokens: number;
  budget: number;
};

export type ImportsList = {
  imports: ImportRow[];
};

export type IndexRebuildParams = {
  agentId?: string | null;
};

export type IndexStatus = {
  bytes: number;
  indexing: boolean;
  progress: number[] | null;
};

/** ``hook.sessionEnd`` and ``hook.beforeReset``: a new job, or why there is none. */
export type Intake = {
  accepted: boolean;
  jobId?: string | null;
  skipped?: string | null;
  messages?: number | null;
};

export type InvalidLine = {
  line: number;
  reason: string;
  excerpt: string;
};

export type InvalidLines = {
  count: number;
  first: InvalidLine[];
};

export type JobCounts = {
  pending: number;
  waiting: number;
  failed: number;
};

export type JobSummary = {
  jobId: string;
  sessionId: string;
  state: "pending" | "waiting" | "failed";
  trigger: string;
  createdAt: string;
  messages: number;
  attempts: number;
  lastError: string | null;
  hasResult: boolean;
  route: string | null;
  notBefore: number | null;
  importId: string | null;
};

export type JobsList = {
  jobs: JobSummary[];
  extraction: ExtractionStatus;
};

export type JobsListParams = {
  agentId?: string | null;
};

export type JobsRetryParams = {
  agentId?: string | null;
  jobId?: string | null;
};

/** An entry as it stands in the log (log/schema.py): its absent fields left out. */
export type LogEntry = {
  id: string;
  timestamp: string;
  type: string;
  content: string;
  status?: string | null;
  detail?: string | null;
  subject?: string | null;
  replaces?: string | null;
  session: string;
};

export type LogResult = {
  id: string;
  timestamp: string;
  type: string;
  content: string;
  status: string | null;
  detail: string | null;
  subject: string | null;
  replaces: string | null;
  session: string;
  path: string;
  startLine: number;
  endLine: number;
  line: number;
  replacedBy: string | null;
  source: "log";
  citation: string;
  snippet: string;
  score: number;
  textScore?: number | null;
  vectorScore?: number | null;
  contentTruncated?: boolean | null;
  detailTruncated?: boolean | null;
};

export type LogStatus = {
  bytes: number;
  lines: number;
  unreadTailBytes: number;
};

export type MemoryResult = {
  path: string;
  startLine: number;
  endLine: number;
  source: "memory";
  citation: string;
  snippet: string;
  score: number;
  textScore: number;
  vectorScore?: number | null;
};

export type Offered = {
  accepted: string[];
  ignored: string[];
  route: Route;
};

export type Paths = {
  log: string;
  subjects: string;
  state: string;
  index: string;
};

export type PromptContext = {
  prependContext: string | null;
};

export type PurgeState = {
  id: string;
  at: string;
  by: string;
  ids: number;
  confirmed: string[];
  unconfirmed: string[];
};

export type Reason = {
  reason: string;
};

export type Rebuilt = {
  entries: number;
  invalidLines: number;
  memoryFiles: number;
  chunks: number;
  seconds: number;
};

export type ReceiptEntry = {
  id: string;
  type: string | null;
  content: string | null;
  present: boolean;
};

/** ``memory.receipts``: what each conversation wrote, newest first. */
export type Receipts = {
  conversations: Conversation[];
};

/** ``memory.receipts``: what each conversation wrote. */
export type ReceiptsParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  limit?: number;
};

/** A workspace ``agents.register`` did not record, and why. */
export type Refusal = {
  agentId: string;
  workspace: string;
  reason: string;
  owner?: string | null;
  ownerWorkspace?: string | null;
  relation?: "same" | "inside" | "contains" | null;
};

/** ``memory.remember``: one entry written now, as the owner says it. */
export type RememberParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  type: "task" | "fact" | "decision" | "question" | "handoff";
  content: string;
  detail?: string | null;
  subject?: string | null;
  status?: "open" | "done" | null;
  replaces?: string | null;
  sessionId?: string | null;
};

/** ``memory.remember``: the receipt. */
export type Remembered = {
  id: string;
  line: number;
  entry: LogEntry;
  existing?: boolean;
};

/** What a purge took off the disk, per place; a dry run names the transcripts it would delete instead. */
export type Removed = {
  log?: RemovedLog | null;
  transcripts?: RemovedFiles | string[] | null;
  spool?: RemovedSpool | null;
  vault?: RemovedVault | null;
  index?: RemovedIndex | null;
  seconds?: number | null;
};

export type RemovedFiles = {
  files: number;
  bytes: number;
};

export type RemovedIndex = {
  rows: number;
  vectors: number;
};

export type RemovedLog = {
  lines: number;
  bytes: number;
};

export type RemovedSpool = {
  jobs: number;
  entries: number;
};

export type RemovedVault = {
  pages: number;
  lines: number;
};

export type Retried = {
  retried: string[];
};

/** The model route: the setting, the route the next job takes (None: none can be asked) and why, and the hosts that offer ``llm.complete``. */
export type Route = {
  setting: "auto" | "anthropic" | "host" | "local";
  active: "anthropic" | "host" | "local" | null;
  reason: string;
  anthropicModel: string;
  hostModel: string;
  hosts: Host[];
  localUrl?: string | null;
  localModel?: string | null;
  speeds?: Record<string, number> | null;
  readingSpeeds?: Record<string, number> | null;
};

export type SearchParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  query?: string | null;
  type?: "task" | "fact" | "decision" | "question" | "handoff" | null;
  subject?: string | null;
  status?: "open" | "done" | null;
  session?: string | null;
  since?: string | null;
  until?: string | null;
  includeReplaced?: boolean;
  maxResults?: number;
  minScore?: number;
  corpus?: "all" | "log" | "files" | "memory" | "sessions" | "wiki";
  order?: "time" | "log";
};

export type SearchResult = {
  results: (LogResult | MemoryResult)[];
  mode: "hybrid" | "keyword" | "filter" | "restricted";
  fallback?: Reason | null;
  restricted?: Reason | null;
  stale?: Reason | null;
};

export type SearchStatus = {
  memoryFiles: number;
  chunks: number;
  semantic: SemanticStatus;
  candidateWindow: number;
};

export type SectionCount = {
  shown: number;
  total: number;
};

export type SemanticStatus = {
  on: boolean;
  reason: string | null;
  embeddings: "local" | "http" | "host";
  hosts: EmbeddingHost[];
  model?: string | null;
  coveredThroughLine?: number | null;
  lines?: number | null;
  state: "loading" | "catching up" | "ready" | "off";
};

/** ``status``'s ``server``: the sidecar's socket, or (the CLI without a sidecar) the mode and the socket it tried. */
export type ServerStatus = {
  socket?: string | null;
  version?: string | null;
  uptimeSeconds?: number | null;
  maxMessageBytes?: number | null;
  mode?: string | null;
  triedSocket?: string | null;
  previousExit?: string | null;
};

export type SkippedPage = {
  page: string;
  reason: string;
};

export type Status = {
  version: string;
  pid: number;
  uptimeSeconds: number;
  home: string;
  workspace: string;
  paths: Paths;
  log: LogStatus;
  entries: EntryCounts;
  invalidLines: InvalidLines;
  subjects: number;
  search: SearchStatus;
  index: IndexStatus;
  agent: string;
  memory: string;
  extraction: ExtractionStatus;
  briefing: BriefingStatus;
  agents: AgentRow[];
  agentsTotal: number;
  workspaceConflicts: WorkspaceConflict[];
  server: ServerStatus;
};

export type StatusParams = {
  agentId?: string | null;
};

export type SubjectAdded = {
  subject: SubjectInfo;
};

export type SubjectInfo = {
  slug: string;
  display: string;
  type: string;
};

export type SubjectRenamed = {
  from: string;
  to: string;
  merged: boolean;
  entriesRewritten: number;
  subject: SubjectInfo;
};

export type SubjectRow = {
  slug: string;
  display: string;
  type: string | null;
  registered: boolean;
  entries: number;
  lastEntry: string | null;
};

export type SubjectsAddParams = {
  agentId?: string | null;
  slug: string;
  type?: string;
  display?: string | null;
};

export type SubjectsList = {
  subjects: SubjectRow[];
};

export type SubjectsListParams = {
  agentId?: string | null;
};

export type SubjectsRenameParams = {
  agentId?: string | null;
  from: string;
  to: string;
};

/** ``hook.gatewayStart``, over every agent's memory. */
export type Sweep = {
  sessions: SweepSession[];
  skipped: SweepSkip[];
  retried: string[];
  errors?: SweepError[];
};

export type SweepError = {
  agentId: string;
  message: string;
};

export type SweepSession = {
  sessionId: string;
  after: After | null;
  agentId?: string | null;
};

export type SweepSkip = {
  sessionId: string;
  reason: string;
};

/** ``sync.init``: sync this memory with ``remote`` (any git remote). ``key``: the text of the age key the other machines use (an encrypted memory's new machine); ``newKey``: make one (the first machine of an encrypted memory). */
export type SyncInitParams = {
  agentId?: string | null;
  remote: string;
  key?: string | null;
  newKey?: boolean;
};

export type SyncInitialized = {
  remote: string;
  machine: string;
  encrypted: boolean;
  keyFile: string | null;
};

export type SyncLast = {
  at: string;
  ok: boolean;
  error?: string | null;
  pulled?: number | null;
  pushed?: number | null;
  seconds?: number | null;
};

export type SyncRan = {
  pulled: number;
  pushed: number;
  purgesApplied: number;
  purgesPublished: number;
  rewritten: boolean;
  tries: number;
  seconds: number;
  remoteBytes: number;
};

/** ``sync.run``: one sync now (pull, then push). */
export type SyncRunParams = {
  agentId?: string | null;
};

export type SyncStatus = {
  configured: boolean;
  machine: string;
  remote: string | null;
  encrypted: boolean;
  machines: string[];
  unpublished: number;
  last: SyncLast | null;
  purges: PurgeState[];
};

/** ``sync.status``: no network; what the last sync left. */
export type SyncStatusParams = {
  agentId?: string | null;
};

/** ``memory.get`` of a memory file or a session's transcript: lines of it. */
export type TextSlice = {
  path: string;
  text: string;
  from: number;
  lines: number;
  totalLines: number;
  truncated: boolean;
};

/** ``memory.trace``: what the last turns were given before the prompt. */
export type Trace = {
  turns: TraceTurn[];
};

/** One thing a turn was given: the handoff (``id``) or the receipt line (``ids``). */
export type TraceItem = {
  kind: "handoff" | "receipt";
  id?: string | null;
  ids?: string[] | null;
  chars: number;
};

/** ``memory.trace``: what the last turns were given. */
export type TraceParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  limit?: number;
};

export type TraceTurn = {
  at: string;
  sessionKey: string | null;
  sessionId: string | null;
  items: TraceItem[];
  chars: number;
  why: string;
};

export type Transcripts = {
  files: number;
  bytes: number;
  oldest: string | null;
  retentionDays: number;
};

/** ``hook.turnFacts``: what the host knows of a session's turn, raw, for the calls of that session that come without it (``session_keys.TurnFacts``). */
export type TurnFactsParams = {
  agentId?: string | null;
  sessionKey: string;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  sessionId?: string | null;
  channel?: string | null;
};

/** ``memory.unforget``: give hidden entries back. */
export type UnforgetParams = {
  agentId?: string | null;
  sessionKey?: string | null;
  chatType?: "direct" | "group" | "channel" | null;
  isGroup?: boolean | null;
  chatId?: string | number | null;
  senderId?: string | number | null;
  senderIsOwner?: boolean | null;
  ids: string[];
  dryRun?: boolean;
};

export type VaultBuildParams = {
  agentId?: string | null;
  path?: string | null;
  fromScratch?: boolean;
  force?: boolean;
};

export type VaultBuilt = {
  vault: string;
  entries: number;
  linesAdded: number;
  pagesCreated: number;
  pagesUpdated: number;
  skippedPages: SkippedPage[];
  movedAside: string | null;
  seconds: number;
};

/** What became of one edited line of a page. */
export type VaultReceipt = {
  page: string;
  line: string;
  of: string;
  action: "done" | "reopen" | "correct" | "hide" | "conflict" | "none" | "add";
  applied: boolean;
  replaces?: string | null;
  entry?: LogEntry | null;
  hidden?: string[] | null;
  reason?: string | null;
};

export type VaultSyncParams = {
  agentId?: string | null;
  path?: string | null;
};

export type VaultSynced = {
  vault: string;
  receipts: VaultReceipt[];
  corrections: number;
  briefing?: boolean | null;
};

export type WorkspaceConflict = {
  agents: string[];
  workspaces: string[];
  relation: "same" | "inside" | "contains";
  configured: boolean;
};

/** Every method's params and result. */
export type Methods = {
  "agents.list": { params: AgentsListParams; result: AgentsList };
  "agents.register": { params: AgentsRegisterParams; result: AgentsRegistered };
  "artifacts.list": { params: ArtifactsListParams; result: ArtifactsList };
  "briefing.generate": { params: BriefingGenerateParams; result: Briefing };
  "hook.beforePromptBuild": { params: BeforePromptBuildParams; result: PromptContext };
  "hook.beforeReset": { params: HookTranscriptParams; result: Intake };
  "hook.gatewayStart": { params: GatewayStartParams; result: Sweep };
  "hook.sessionEnd": { params: HookTranscriptParams; result: Intake };
  "hook.turnFacts": { params: TurnFactsParams; result: FactsNoted };
  "host.offer": { params: HostOfferParams; result: Offered };
  "import.apply": { params: ImportApplyParams; result: ImportProgress };
  "import.list": { params: ImportListParams; result: ImportsList };
  "import.plan": { params: ImportPlanParams; result: ImportPlan };
  "import.rollback": { params: ImportRollbackParams; result: ImportRolledBack };
  "index.rebuild": { params: IndexRebuildParams; result: Rebuilt };
  "jobs.list": { params: JobsListParams; result: JobsList };
  "jobs.retry": { params: JobsRetryParams; result: Retried };
  "memory.forget": { params: ForgetParams; result: Forgot };
  "memory.get": { params: GetParams; result: EntryWithChain | TextSlice };
  "memory.receipts": { params: ReceiptsParams; result: Receipts };
  "memory.remember": { params: RememberParams; result: Remembered };
  "memory.search": { params: SearchParams; result: SearchResult };
  "memory.trace": { params: TraceParams; result: Trace };
  "memory.unforget": { params: UnforgetParams; result: Forgot };
  "status": { params: StatusParams; result: Status };
  "subjects.add": { params: SubjectsAddParams; result: SubjectAdded };
  "subjects.list": { params: SubjectsListParams; result: SubjectsList };
  "subjects.rename": { params: SubjectsRenameParams; result: SubjectRenamed };
  "sync.init": { params: SyncInitParams; result: SyncInitialized };
  "sync.run": { params: SyncRunParams; result: SyncRan };
  "sync.status": { params: SyncStatusParams; result: SyncStatus };
  "vault.build": { params: VaultBuildParams; result: VaultBuilt };
  "vault.sync": { params: VaultSyncParams; result: VaultSynced };
};

export type MethodName = keyof Methods;
export type ParamsOf<M extends MethodName> = Methods[M]["params"];
export type ResultOf<M extends MethodName> = Methods[M]["result"];
