// What `pycline ui` sends the page besides task events (pycline/web/server.py and api.py), and
// what the page keeps. Task events and commands are the generated events.d.ts / commands.d.ts.

import type { Event, Option } from "./events";

/** A tool's facts from the server's catalogue (pycline/app/tool_catalogue.py). */
export interface ToolFacts {
  effect: string;
  title: string;
  done_title: string;
  label?: string;
  kind: string;
  checkpointed?: boolean;
  read_only?: boolean;
  conversational: boolean;
}

export type Status = "running" | "waiting" | "completed" | "failed" | "cancelled" | "saved" | "background";

/** One task this server runs (`Run.summary`). */
export interface TaskSummary {
  id: string;
  run?: string;
  task: string;
  status: Status;
  /** the mode the task is in now (a task waiting at its plan: "plan") */
  mode?: "act" | "plan";
  models?: { act?: string; plan?: string };
  next?: string;
  workspace?: string;
}

export interface Hello {
  type: "hello";
  workspace: string;
  providers: string[];
  models: { act: string; plan: string };
  tasks: TaskSummary[];
  tools: Record<string, ToolFacts>;
}

/** An option as the page receives it: Cline's label for it, and whether it refuses. */
export interface PageOption extends Option {
  secondary?: boolean;
}

/** Every event the page receives, live or replayed from a task's event log: the same kinds. */
export type AnyEvent = Event;

export type ServerMessage =
  | Hello
  | { type: "tasks"; tasks: TaskSummary[] }
  | { type: "events"; task_id: string; run: string; events: AnyEvent[] }
  | { type: "started"; task_id: string; request: number }
  | { kind: "accepted"; task_id: string; request?: number | string | null }
  | { kind: "rejected"; task_id: string; request?: number | string | null; error: string };

/** A slash command as GET /api/commands lists it (pycline/app/slash_commands.py). */
export interface SlashCommandInfo {
  name: string;
  usage: string;
  help: string;
  source: "pycline" | "cline" | "workflow";
}

export type RowType =
  | "user" | "text" | "reasoning" | "tool" | "group" | "followup" | "completion" | "plan"
  | "ask-error" | "notice" | "error" | "checkpoint";

/** One call in a row of reads, listings and searches shown together. */
export interface ToolItem {
  tool: string;
  summary: string;
  output: string;
  done: boolean;
  ok?: boolean;
  result?: string;
  images?: string[];
}

/** A row of a transcript; `version` changes whenever the row does, so views redraw only it. */
export interface Row {
  id: number;
  index: number;
  version: number;
  turn: number;
  type: RowType;
  text?: string;
  ts?: number;
  editable?: boolean;
  feedback?: boolean;
  original?: string;
  editing?: boolean;
  draft?: string;
  streaming?: boolean;
  open?: boolean;
  expanded?: boolean;
  tool?: string;
  summary?: string;
  output?: string;
  done?: boolean;
  ok?: boolean;
  result?: string;
  images?: string[];
  callId?: string;
  partial?: boolean;
  streamed?: string;
  /** A streaming call's parameters so far. */
  params?: Record<string, string>;
  /** A command the user let run on ("Proceed While Running"): "running" until it exits. */
  background?: "running" | "exited";
  items?: ToolItem[];
  questionId?: string;
  answered?: boolean;
  response?: string;
  options?: PageOption[];
  preview?: string;
  content?: string | null;
  path?: string;
  outside?: boolean;
  edited?: string;
  question?: string;
  title?: string;
  command?: string | null;
  commit?: string;
  label?: string;
  raw?: boolean;
  /** The renderer's cache of a streaming reply's finished blocks. */
  md?: unknown;
}

export interface Usage {
  input: number;
  output: number;
  cacheReads: number;
  cacheWrites: number;
  cost: number;
  context: number;
  window: number;
}

export interface Progress {
  checklist: string;
  completed: number;
  total: number;
  current: string;
}
