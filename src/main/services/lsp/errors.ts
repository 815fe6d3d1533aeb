// Why a language server could not answer; kept apart from the LSP client so that the workspace's
// `LanguageServers` can tell it without loading the protocol library before a server starts.

export class ServerGoneError extends Error {
  constructor(readonly why: string) {
    super(why);
    this.name = 'ServerGoneError';
  }
}
