// /.well-known/agent-skills/{skill}/SKILL.md: each skill's file, byte for byte as content/agent-skills has it (the
// index's digests are of these bytes).
import type { APIRoute, GetStaticPaths } from 'astro';
import { agentSkills } from '../../../../lib/agent-discovery.ts';
import { SKILLS_ROOT } from '../index.json.ts';

export const getStaticPaths: GetStaticPaths = () =>
  agentSkills(SKILLS_ROOT).map((skill) => ({
    params: { skill: skill.name },
    props: { body: skill.files.find((f) => f.path === 'SKILL.md')!.body },
  }));

export const GET: APIRoute = ({ props }) => new Response(new Uint8Array((props as { body: Buffer }).body));
