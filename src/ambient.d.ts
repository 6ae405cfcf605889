// Files imported `with { type: 'file' }` resolve to their path (embedded in the compiled binary).
declare module '*.wasm' {
  const path: string;
  export default path;
}
declare module '*.data' {
  const path: string;
  export default path;
}
