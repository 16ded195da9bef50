// /.well-known/agent-skills/index.json: the Agent Skills index, digests computed from the bytes served.
import { join } from 'node:path';
import type { APIRoute } from 'astro';
import { agentSkills, agentSkillsIndex } from '../../../lib/agent-discovery.ts';

// The build runs at the project's root (a bundled endpoint's own URL says nothing of where content/ is).
export const SKILLS_ROOT = join(process.cwd(), 'content/agent-skills');

export const GET: APIRoute = () =>
  new Response(JSON.stringify(agentSkillsIndex(agentSkills(SKILLS_ROOT)), null, 2) + '\n');
