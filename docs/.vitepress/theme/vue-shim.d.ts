// Single-file components are compiled by VitePress; to TypeScript they are opaque values.
declare module '*.vue' {
  const component: import('vue').Component;
  export default component;
}
