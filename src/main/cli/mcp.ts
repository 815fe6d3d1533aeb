// Placeholder until the MCP server lands (edit issue); replaced by that work.
export async function runMcp(_args: string[]): Promise<void> {
  throw new Error('loupe mcp is not available in this build yet.');
}
