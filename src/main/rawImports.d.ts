// Vite's `?raw` imports (a file's text bundled as a string): the sandbox's network bridge ships this way.
declare module '*?raw' {
  const text: string;
  export default text;
}
