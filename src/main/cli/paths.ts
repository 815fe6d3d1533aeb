/** Where the built artefacts are; `bin/loupe.mjs` knows, bundled chunks cannot tell. */
export interface CliPaths {
  /** The built renderer (index.html and assets) that `loupe serve` hands to browsers. */
  rendererDir: string;
  /** The installation's top folder (the checkout, or `~/.loupe-server/<version>/` on a remote machine). */
  bundleDir: string;
}
