import { z } from 'zod';
import { AgentCard, type AgentInterface } from '@a2a-js/sdk';

export const JSONRPC_PATH = '/jsonrpc';
export const REST_PATH = '/rest';
export const AGENT_CARD_PATH = '/.well-known/agent-card.json';

const skillSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().default(''),
  tags: z.array(z.string()).default([]),
  examples: z.array(z.string()).default([]),
  inputModes: z.array(z.string()).default([]),
  outputModes: z.array(z.string()).default([]),
});

/** What a graph author may say about the agent; everything else is generated. */
export const cardOptionsSchema = z
  .object({
    name: z.string().min(1).optional(),
    description: z.string().optional(),
    version: z.string().min(1).optional(),
    skills: z.array(skillSchema).optional(),
    provider: z.object({ organization: z.string(), url: z.string().url() }).optional(),
    documentationUrl: z.string().url().optional(),
    iconUrl: z.string().url().optional(),
    defaultInputModes: z.array(z.string().min(1)).optional(),
    defaultOutputModes: z.array(z.string().min(1)).optional(),
  })
  .strict();

export type CardOptions = z.input<typeof cardOptionsSchema>;

export interface CardFacts {
  graphName: string | undefined;
  streaming: boolean;
  pushNotifications: boolean;
  legacyCompat: boolean;
}

const PLACEHOLDER_BASE = 'http://localhost';

/**
 * The agent card the request handler works with. Interface URLs are placeholders:
 * the served card gets absolute URLs for the address the client used (see `renderCard`).
 */
export function buildAgentCard(options: CardOptions, facts: CardFacts, prefix: string): AgentCard {
  const o = cardOptionsSchema.parse(options);
  const name = o.name ?? facts.graphName ?? 'LangGraph agent';
  const description = o.description ?? `A LangGraph.js graph served over A2A: ${name}.`;
  const skills = o.skills ?? [
    {
      id: slug(name),
      name,
      description,
      tags: ['langgraph'],
      examples: [],
      inputModes: [],
      outputModes: [],
    },
  ];
  return {
    name,
    description,
    version: o.version ?? '0.1.0',
    supportedInterfaces: interfaces(PLACEHOLDER_BASE + prefix, facts.legacyCompat),
    provider: o.provider,
    documentationUrl: o.documentationUrl,
    iconUrl: o.iconUrl,
    capabilities: {
      streaming: facts.streaming,
      pushNotifications: facts.pushNotifications,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: o.defaultInputModes ?? ['text/plain', 'application/json'],
    defaultOutputModes: o.defaultOutputModes ?? ['text/plain', 'application/json'],
    skills: skills.map((s) => ({ ...s, securityRequirements: [] })),
    signatures: [],
  };
}

function interfaces(base: string, legacyCompat: boolean): AgentInterface[] {
  const list: AgentInterface[] = [
    { url: base + JSONRPC_PATH, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    { url: base + REST_PATH, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: '1.0' },
  ];
  if (legacyCompat) {
    list.push({ url: base + JSONRPC_PATH, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' });
  }
  return list;
}

/**
 * The card as served: v1.0 JSON with absolute interface URLs for `baseUrl`, plus, when
 * the v0.3 layer is on, the v0.3 top-level fields (`url`, `preferredTransport`,
 * `protocolVersion`, `additionalInterfaces`). The two field sets are disjoint, so v1.0
 * clients (which see a non-empty `supportedInterfaces`) and v0.3 clients both read it.
 */
export function renderCard(card: AgentCard, baseUrl: string, legacyCompat: boolean): Record<string, unknown> {
  const supportedInterfaces = card.supportedInterfaces.map((i) => ({
    ...i,
    url: baseUrl + i.url.slice(PLACEHOLDER_BASE.length),
  }));
  const json = AgentCard.toJSON({ ...card, supportedInterfaces }) as Record<string, unknown>;
  if (!legacyCompat) return json;
  const jsonrpc = supportedInterfaces.find((i) => i.protocolBinding === 'JSONRPC' && i.protocolVersion === '0.3');
  return {
    ...json,
    protocolVersion: '0.3.0',
    url: jsonrpc?.url,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: jsonrpc ? [{ url: jsonrpc.url, transport: 'JSONRPC' }] : [],
  };
}

function slug(value: string): string {
  return (
    value
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'agent'
  );
}
