"use strict";
const median = (xs) => {
  const v = xs.filter((x) => typeof x === "number" && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
};
const round = (x, digits = 2) => (x === undefined || x === null || Number.isNaN(x) ? undefined : Math.round(x * 10 ** digits) / 10 ** digits);
const min = (xs) => (xs.length ? Math.min(...xs) : undefined);
const max = (xs) => (xs.length ? Math.max(...xs) : undefined);
/** Per-pair ratios a[i]/b[i] (pairs measured back to back), and their median. */
const pairedRatios = (a, b) => a.map((x, i) => (b[i] ? x / b[i] : undefined)).filter((x) => x !== undefined);
module.exports = { median, round, min, max, pairedRatios };
