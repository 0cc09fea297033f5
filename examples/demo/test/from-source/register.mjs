// `node --import <this>`: a process that may not load any sluice package from a build
// (packages/*/dist): the README's demos run from source on a fresh clone, where there is
// no dist/ to fall back on.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
