// A run's event stream: Server-Sent Events read through fetch (EventSource can neither
// POST a question nor send the API key as a header).
//
// Exactly once: every event carries its seq (also the SSE id). Events at or below the
// last seq seen are dropped; a dropped connection (or one that ends before the run's
// terminal event) is re-opened as GET /v1/runs/{id}/events with Last-Event-ID, so the
// server resends only what came after — nothing lost, nothing shown twice.

import { ApiError, authHeaders, errorOf, unauthorized } from "./api.js";

const MAX_RETRIES = 30; // consecutive failed attempts before the page gives up

/** Parse an SSE byte stream into {id, data, retry} frames. */
export async function* sseFrames(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let cut;
      while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
        const frame = { id: null, data: [], retry: null };
        for (const line of block.split(/\r?\n/)) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") frame.data.push(val);
          else if (field === "id") frame.id = val;
          else if (field === "retry" && /^\d+$/.test(val)) frame.retry = Number(val);
        }
        if (frame.data.length || frame.retry !== null) yield { ...frame, data: frame.data.join("\n") };
      }
    }
  } finally {
    reader.releaseLock();
  }
}

export class RunStream {
  /**
   * @param {object} opts
   * @param {(event: object) => void} opts.onEvent every new event, once, in seq order
   * @param {(state: string, info?: object) => void} [opts.onState] connecting/reconnecting/closed
   * @param {number} [opts.lastSeq] events up to this seq were already shown (a resume)
   */
  constructor({ onEvent, onState = () => {}, lastSeq = 0 }) {
    this.onEvent = onEvent;
    this.onState = onState;
    this.lastSeq = lastSeq;
    this.runId = null;
    this.retryMs = 1000;
    this.done = false;
    this.reconnects = 0;
    this.controller = new AbortController();
  }

  /** Open the stream with a first request (POST /v1/runs, or a resume); resolves at the end. */
  async run(path, json) {
    let init = {
      method: "POST", signal: this.controller.signal,
      headers: authHeaders({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify(json),
    };
    let url = path;
    while (!this.done) {
      try {
        this.onState(this.reconnects ? "reconnecting" : "connecting");
        const response = await fetch(url, init);
        if (!response.ok) {
          const error = await errorOf(response);
          if (response.status === 401) unauthorized.forEach((fn) => fn(error));
          throw error;
        }
        this.runId = this.runId || response.headers.get("X-Run-Id");
        this.onState("open");
        this.reconnects = 0;
        for await (const frame of sseFrames(response.body)) {
          if (frame.retry !== null) this.retryMs = frame.retry;
          if (!frame.data) continue;
          const event = JSON.parse(frame.data);
          this.runId = this.runId || event.run_id;
          if (event.seq <= this.lastSeq) continue; // already shown: never twice
          this.lastSeq = event.seq;
          this.onEvent(event);
          if (event.end_of_dialog) { this.done = true; break; }
        }
      } catch (error) {
        if (this.controller.signal.aborted) { this.done = true; break; }
        // A refusal (4xx) is final; a network failure or a server error (5xx) is retried.
        const refused = error instanceof ApiError && error.status >= 400 && error.status < 500;
        if (refused) { this.done = true; this.onState("closed"); throw error; }
        if (!this.runId) { this.done = true; this.onState("closed"); throw error; }
      }
      if (this.done) break;
      // Dropped, or ended without the terminal event: attach again after the last seq.
      this.reconnects += 1;
      if (this.reconnects > MAX_RETRIES) {
        this.done = true;
        this.onState("closed");
        throw new ApiError(0, "network_error", "the connection to the server was lost");
      }
      this.onState("reconnecting", { after: this.lastSeq });
      // The first retry comes quickly (a blip); later ones wait the server's `retry:`.
      const wait = this.reconnects === 1 ? Math.min(this.retryMs, 200) : this.retryMs;
      await new Promise((resolve) => setTimeout(resolve, wait));
      url = `/v1/runs/${encodeURIComponent(this.runId)}/events`;
      init = {
        method: "GET", signal: this.controller.signal,
        headers: authHeaders({ Accept: "text/event-stream", "Last-Event-ID": String(this.lastSeq) }),
      };
    }
    this.onState("closed");
  }

  abort() {
    this.done = true;
    this.controller.abort();
  }
}
