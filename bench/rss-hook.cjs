// Preloaded with `node --require bench/rss-hook.cjs ...`: writes the process's peak resident memory to
// the file named by BENCH_RSS_FILE when it exits, so a benchmark can measure a real command (the CLI)
// as users run it, with nothing of the benchmark loaded into it.
process.on('exit', () => {
  if (process.env.BENCH_RSS_FILE)
    require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, JSON.stringify({ maxRssMb: process.resourceUsage().maxRSS / 1024 }));
});
