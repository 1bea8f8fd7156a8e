import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** One tool call through a real MCP client. */
export const call = (c: Client, name: string, args: Record<string, unknown> = {}) =>
  c.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The API error body a failed tool call carries (its last text block), or null when it succeeded. */
export function errorOf(result: CallToolResult): Record<string, unknown> | null {
  if (!result.isError) return null;
  const last = result.content[result.content.length - 1] as { text: string };
  try {
    return JSON.parse(last.text) as Record<string, unknown>;
  } catch {
    return { error: 'tool_error', message: last.text };
  }
}
