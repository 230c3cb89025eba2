"use strict";
/**
 * Server-side timing for the in-process storage API (server/api-server.ts) without changing it:
 * each request record pushed to `api.requests` gets its arrival time, and the moment the server
 * sets its final status (on 'finish') is its answer time. A window is first arrival to last
 * answer of the POSTs made while a tag was open: for a `pulumi up` it is the part of the run
 * during which the provider was creating users.
 */
function instrument(api) {
  const requests = api.requests;
  const push = requests.push;
  let open;
  requests.push = function (...records) {
    const arrived = performance.now();
    for (const record of records) {
      const mark = { arrived, answered: undefined, record };
      let status = record.status;
      Object.defineProperty(record, "status", {
        enumerable: true,
        configurable: true,
        get: () => status,
        set: (v) => {
          status = v;
          mark.answered = performance.now();
        },
      });
      if (open && record.method === "POST") open.push(mark);
    }
    return push.apply(this, records);
  };
  return {
    begin() {
      open = [];
    },
    /** Windows of the POSTs since begin(), grouped by `group(userName)` (one group by default). */
    end(group = () => "all") {
      const marks = open ?? [];
      open = undefined;
      const groups = {};
      for (const m of marks) {
        let userName = "";
        try {
          userName = JSON.parse(m.record.body).UserName ?? "";
        } catch {}
        (groups[group(userName)] ??= []).push(m);
      }
      const out = {};
      for (const [k, ms] of Object.entries(groups)) {
        const first = Math.min(...ms.map((m) => m.arrived));
        const last = Math.max(...ms.map((m) => m.answered ?? m.arrived));
        out[k] = { posts: ms.length, ok: ms.filter((m) => m.record.status === 200).length, windowMs: Math.round(last - first) };
      }
      return out;
    },
  };
}
module.exports = { instrument };
