// What the editor's API tells of a model beyond the stable fields, and what of the bridge's
// per-request model configuration may go to it. Pure: unit-tested in node.
//
// A `LanguageModelChat` carries `maxInputTokens` in the stable API; newer VS Code builds also
// expose the provider's `maxOutputTokens`, `capabilities` and (proposed `chatProvider` API) the
// `configurationSchema` of the per-model configuration that Copilot reads (its reasoning effort).
// Each is read only where present, with its type checked.

import type { ModelCapabilities } from './protocol';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The model's output limit (0: not said) and capabilities (absent: the bridge assumes both). */
export function modelExtras(model: unknown): { maxOutputTokens: number; capabilities?: ModelCapabilities } {
  const m = isObject(model) ? model : {};
  const out = m.maxOutputTokens;
  const extras: { maxOutputTokens: number; capabilities?: ModelCapabilities } = {
    maxOutputTokens: typeof out === 'number' && Number.isFinite(out) && out > 0 ? out : 0,
  };
  const caps = m.capabilities;
  if (isObject(caps)) {
    const capabilities: ModelCapabilities = {};
    // The provider's names (`imageInput`, `toolCalling`), or the older proposed ones.
    const image = caps.imageInput ?? caps.supportsImageToText;
    const tools = caps.toolCalling ?? caps.supportsToolCalling;
    if (typeof image === 'boolean') capabilities.imageInput = image;
    if (typeof tools === 'boolean') capabilities.toolCalling = tools;
    else if (typeof tools === 'number') capabilities.toolCalling = tools > 0;
    extras.capabilities = capabilities;
  }
  return extras;
}

/**
 * The part of `wanted` the model's configuration schema lists (a value outside a listed
 * `enum` left out too), and the keys left out. Without a schema nothing is passed: a provider
 * validates its configuration against it.
 */
export function allowedConfiguration(
  model: unknown, wanted: Record<string, unknown>,
): { passed: Record<string, unknown>; left: string[] } {
  const schema = isObject(model) ? model.configurationSchema : undefined;
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const passed: Record<string, unknown> = {};
  const left: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    const property = properties[key];
    const choices = isObject(property) && Array.isArray(property.enum) ? property.enum : undefined;
    if (isObject(property) && (choices === undefined || choices.includes(value))) passed[key] = value;
    else left.push(key);
  }
  return { passed, left };
}
