// `pnpm bench:protocols`: GraphQL cost analysis, useSluice's cost on Yoga, ws limitMessages under a flood.
import { parseCommand } from '../cli/args.js';
import { benchCost } from './cost.js';
import { benchFlood } from './ws.js';
import { benchYoga } from './yoga.js';

const { values: args } = parseCommand({
  usage: 'pnpm bench:protocols -- [options]',
  summary:
    'GraphQL cost analysis (100 fields), the useSluice plugin on Yoga requests/s, and ws limitMessages under a flood (pause beside drop).',
  options: {
    only: { type: 'string', default: '', help: 'cost, yoga or ws (default all)' },
    rounds: { type: 'number', default: 3, help: 'Yoga rounds (new server processes each)' },
    seconds: { type: 'number', default: 5, help: 'seconds per Yoga measurement' },
    query: {
      type: 'string',
      default: 'small',
      help: 'Yoga query: small (hello world) or wide (the 100-field query, 5 items per connection)',
    },
    'ws-seconds': { type: 'number', default: 60, help: 'seconds of each ws flood run' },
  },
});
const only = args.only;
const out: Record<string, unknown> = { node: process.version, at: new Date().toISOString() };
if (only === '' || only === 'cost') {
  out.cost = benchCost();
  console.log('cost analysis, 100-field query (µs):', out.cost);
}
if (only === '' || only === 'yoga') {
  if (args.query !== 'small' && args.query !== 'wide')
    throw new Error(`--query: small or wide, got ${args.query}`);
  out.yoga = await benchYoga(args.rounds, args.seconds, args.query);
  console.log('Yoga requests/s, useSluice / plain:', out.yoga);
}
if (only === '' || only === 'ws') {
  const pause = await benchFlood('pause', args['ws-seconds']);
  console.log('ws flood, pause mode:', pause);
  const drop = await benchFlood('drop', args['ws-seconds']);
  console.log('ws flood, unpaused (drop) run:', drop);
  out.ws = { pause, drop };
}
console.log(JSON.stringify(out));
process.exit(0);
