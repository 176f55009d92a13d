// Lets the conformance suite's CLI load on Node 20: its bundle imports `globSync` from "fs" (Node
// 22+) for its tier-check command only, which the client scenarios never use. The hooks move that
// one import to a stand-in that says so if it is ever called.
import { register } from "node:module";

register("./node20-hooks.mjs", import.meta.url);
