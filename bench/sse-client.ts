/**
 * The load side of the streaming scenarios: SendStreamingMessage over JSON-RPC + SSE
 * with node:http (keep-alive), reading frames as they arrive.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';

export interface StreamOutcome {
  /** From sending the request to the first SSE frame, in ms. */
  firstFrameMs: number;
  /** Text of every artifact-update frame, in arrival order. */
  text: string;
  artifactFrames: number;
  frames: number;
  /** The last frame's task state (`TASK_STATE_COMPLETED` when all went well). */
  finalState: string | undefined;
}

const body = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendStreamingMessage',
    params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } },
  });

interface Frame {
  result?: {
    artifactUpdate?: { artifact?: { parts?: Array<{ text?: string }> } };
    statusUpdate?: { status?: { state?: string } };
    task?: { status?: { state?: string } };
  };
}

/** One SendStreamingMessage, read to its end. */
export function streamOnce(url: string, agent: http.Agent, onFirstFrame?: () => void): Promise<StreamOutcome> {
  const started = performance.now();
  const payload = body('go');
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${url}/a2a/jsonrpc`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'a2a-version': '1.0',
        },
      },
      (res) => {
        res.setEncoding('utf8');
        let buffer = '';
        const out: StreamOutcome = { firstFrameMs: NaN, text: '', artifactFrames: 0, frames: 0, finalState: undefined };
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.startsWith('data: ') ? block.slice(6) : undefined;
            if (data === undefined) continue;
            if (out.frames++ === 0) {
              out.firstFrameMs = performance.now() - started;
              onFirstFrame?.();
            }
            const frame = JSON.parse(data) as Frame;
            const r = frame.result;
            if (r?.artifactUpdate) {
              out.artifactFrames++;
              for (const p of r.artifactUpdate.artifact?.parts ?? []) out.text += p.text ?? '';
            }
            const state = r?.statusUpdate?.status?.state ?? r?.task?.status?.state;
            if (state) out.finalState = state;
          }
        });
        res.on('end', () => resolve(out));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
