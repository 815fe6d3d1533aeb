// Values checked against JSON Schemas with the validator MCP clients use (the SDK's Ajv): a tool's
// results against the outputSchema `loupe mcp` publishes (registry.ts), a server tool's arguments
// against the server's own inputSchema (mcpTool.ts). Ajv is loaded at the first check, not at start.

export type SchemaCheck = (value: unknown) => { valid: boolean; errorMessage?: string };

/** Keyed by the schema object itself: a module's constant, or a server's listed tool. */
const compiled = new WeakMap<object, Promise<SchemaCheck | null>>();

/**
 * The check for this schema, compiled once (each in an Ajv of its own: two servers may use one
 * `$id` for different schemas); null when it cannot be compiled (a remote `$ref`, a type that does
 * not exist), and then the schema's owner is the only judge.
 */
export function schemaCheck(schema: object): Promise<SchemaCheck | null> {
  let check = compiled.get(schema);
  if (!check) {
    check = import('@modelcontextprotocol/sdk/validation/ajv').then(({ AjvJsonSchemaValidator }) => {
      try {
        return new AjvJsonSchemaValidator().getValidator(schema as never) as SchemaCheck;
      } catch {
        return null;
      }
    });
    compiled.set(schema, check);
  }
  return check;
}
