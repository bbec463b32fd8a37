// A chat's input as one text for the model's token counter (docs/protocol.md, "Counting the
// input"): the same text the server counts for an editor that does not count itself
// (bridge/core/token_limits.py `input_text`), so both ways refuse the same inputs. Pure: no
// `vscode` here, so it is unit-tested in node.

import type { ChatParams } from './protocol';

/** Messages' text in order (a tool call as its name and compact JSON input, a tool result's
 * text parts, a thought's text), then each tool as name, description and compact JSON schema; images are left
 * to the server's estimate (`countInput.imageTokens`). */
export function inputText(request: Pick<ChatParams, 'messages' | 'tools'>): string {
  const texts: string[] = [];
  for (const message of request.messages) {
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
          texts.push(part.value);
          break;
        case 'toolCall':
          texts.push(`${part.name} ${JSON.stringify(part.input)}`);
          break;
        case 'toolResult':
          for (const inner of part.content) if (inner.type === 'text') texts.push(inner.value);
          break;
        case 'thinking': // an earlier thought given back: the model reads its text
          if (part.value) texts.push(part.value);
          break;
        case 'data':
          break;
      }
    }
  }
  for (const tool of request.tools) {
    const schema = tool.inputSchema ? JSON.stringify(tool.inputSchema) : '';
    texts.push(`${tool.name} ${tool.description} ${schema}`);
  }
  return texts.join('\n');
}

/** The refusal's message, as the headless editor words it. */
export function inputTooLongMessage(tokens: number, maxTokens: number): string {
  return `The input is ${tokens} tokens, more than the ${maxTokens} tokens the model can read.`;
}
