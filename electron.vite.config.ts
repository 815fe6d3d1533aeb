import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';

export default defineConfig({
  main: {
    build: {
      // zod is bundled: as a package it is ~35 ESM files that Node resolves, reads and compiles
      // one by one before `loupe serve` can print its URL (~40 ms of CPU); in the bundle it is
      // one more stretch of an already-read chunk. (The MCP SDK, loaded later, keeps its own.)
      externalizeDeps: { exclude: ['zod'] },
      outDir: 'out/main',
      rollupOptions: {
        // Two entries share one bundle graph: the Electron app and the plain-Node CLI
        // (`loupe serve | run | mcp`), which must never pull in 'electron'.
        input: {
          index: resolve('src/main/electron/main.ts'),
          cli: resolve('src/main/cli/index.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        // A sandboxed preload must be CommonJS.
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    base: './',
    build: {
      outDir: resolve('out/renderer'),
      chunkSizeWarningLimit: 8000,
      // electron-vite leaves the renderer unminified; Monaco alone halves with it.
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
