/**
 * The demo's tools: OpenAI-style definitions with JSON-schema parameters, and the canned results
 * a tool "returns" in multi-turn traces. Small on purpose: the demo model is tiny.
 */
import type { Tool } from '../calibration/chat-schema.ts';

export interface DemoToolDef {
  readonly name: string;
  readonly description: string;
  /** Parameter name → JSON type; all parameters are required. */
  readonly params: Readonly<Record<string, 'string' | 'integer'>>;
}

export const DEMO_TOOLS: readonly DemoToolDef[] = [
  { name: 'get_weather', description: 'Current weather of a city', params: { city: 'string' } },
  { name: 'get_price', description: 'Price of an item in dollars', params: { item: 'string' } },
  { name: 'set_timer', description: 'Start a timer', params: { minutes: 'integer' } },
];

export function toolDefinition(def: DemoToolDef): Tool {
  return {
    type: 'function',
    function: {
      name: def.name,
      description: def.description,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(Object.entries(def.params).map(([k, t]) => [k, { type: t }])),
        required: Object.keys(def.params),
      },
    },
  };
}

export const CITIES = ['Paris', 'Oslo', 'Lima', 'Cairo', 'Tokyo', 'Rome', 'Delhi', 'Quito', 'Berlin', 'Sydney'];
export const ITEMS = ['apple', 'lamp', 'book', 'chair', 'pen', 'kettle', 'scarf', 'clock'];
export const WEATHER = ['sunny', 'rainy', 'cloudy', 'windy', 'snowy'];
