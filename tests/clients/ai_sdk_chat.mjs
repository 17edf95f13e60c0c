// A stock AI SDK chat client, unchanged: the `ai` package's DefaultChatTransport (what
// useChat sends through by default) posts each chat's messages to the API, and the
// package's own readUIMessageStream builds the assistant message from the stream.
// Usage: node ai_sdk_chat.mjs NODE_MODULES API CHATS_JSON
//   CHATS_JSON: [{"id": chatId, "messages": [UIMessage, ...]}, ...], sent one after another.
// Prints one JSON line: [{"message": UIMessage, "errors": [..]}, ...].
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [, , nodeModules, api, chatsJson] = process.argv;
const require = createRequire(`${nodeModules}/`);
const { DefaultChatTransport, readUIMessageStream } = await import(
  pathToFileURL(require.resolve('ai')).href);

const transport = new DefaultChatTransport({ api });
const results = [];
for (const chat of JSON.parse(chatsJson)) {
  const errors = [];
  const stream = await transport.sendMessages({
    chatId: chat.id, messages: chat.messages, trigger: 'submit-message',
    messageId: undefined, abortSignal: undefined,
  });
  let message = null;
  for await (const snapshot of readUIMessageStream({ stream, onError: e => errors.push(String(e)) })) {
    message = snapshot;
  }
  results.push({ message, errors });
}
console.log(JSON.stringify(results));
