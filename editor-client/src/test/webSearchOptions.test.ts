import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildInitializationOptions } from '../options';
import { webSearchNeedsTls, webSearchUsesEditorTool } from '../webSearchOptions';

const endpoint = { host: '127.0.0.1', port: 23335, apiKey: '' };

describe('web search settings', () => {
  it('passes the backend, its URL, its tool and its bounds the user set', () => {
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'webSearch.backend': 'searxng',
      'webSearch.url': ' http://127.0.0.1:8888 ',
      'webSearch.tool': '',
      'webSearch.maxResults': 8,
      'webSearch.timeoutSeconds': 5.5,
    });
    assert.deepEqual(ignored, []);
    assert.deepEqual(options.webSearch, {
      backend: 'searxng', url: 'http://127.0.0.1:8888', maxResults: 8, timeoutSeconds: 5.5,
    });
  });

  it('sends nothing when web search is off, and names values of the wrong type', () => {
    assert.equal('webSearch' in buildInitializationOptions(endpoint, { 'webSearch.backend': '' }).options, false);
    const { options, ignored } = buildInitializationOptions(endpoint, {
      'webSearch.backend': 'google', 'webSearch.maxResults': 2.5, 'webSearch.tool': 3,
    });
    assert.equal('webSearch' in options, false);
    assert.deepEqual(ignored, ['webSearch.backend', 'webSearch.tool', 'webSearch.maxResults']);
  });

  it('keeps TLS for https searches and answers tool calls for the tool backend', () => {
    assert.equal(webSearchNeedsTls({ 'webSearch.backend': 'brave' }), true);
    assert.equal(webSearchNeedsTls({ 'webSearch.backend': 'searxng', 'webSearch.url': 'HTTPS://searx.example' }), true);
    assert.equal(webSearchNeedsTls({ 'webSearch.backend': 'searxng', 'webSearch.url': 'http://127.0.0.1:8888' }), false);
    assert.equal(webSearchUsesEditorTool({ 'webSearch.backend': 'tool' }), true);
    assert.equal(webSearchUsesEditorTool({ 'webSearch.backend': 'searxng' }), false);
  });
});
