import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SKILLS_BUDGET, skillsText, type SkillBrief } from './skillsText';

const skill = (i: number, len: number, scope: SkillBrief['scope'] = 'repository'): SkillBrief => ({ name: `skill-${String(i).padStart(3, '0')}`, description: `Skill ${i}: ${'d'.repeat(Math.max(0, len - 10))}`.slice(0, len), scope });

describe('skillsText', () => {
  it('lists every skill whole when they fit, the person’s marked', () => {
    const { text, listed, shortened } = skillsText([skill(1, 40, 'personal'), skill(2, 40)], 'skill');
    expect(listed).toBe(2);
    expect(shortened).toBe(0);
    expect(text).toContain('call `skill` with its name');
    expect(text).toContain(`- skill-001 (yours): ${skill(1, 40).description}`);
    expect(text).toContain(`- skill-002: ${skill(2, 40).description}`);
  });

  it('200 skills with 1,024-character descriptions stay within the budget, every name listed, the longest cut and said', () => {
    const many = Array.from({ length: 200 }, (_, i) => skill(i, i % 4 === 0 ? 30 : 1024));
    const { text, listed, shortened } = skillsText(many, 'skill');
    expect(text.length).toBeLessThanOrEqual(SKILLS_BUDGET);
    expect(listed).toBe(200);
    expect(shortened).toBe(150);
    // A short description keeps all of it; a long one ends in an ellipsis.
    expect(text).toContain(`- skill-000: ${skill(0, 30).description}\n`);
    expect(text).toMatch(/- skill-001: Skill 1: d+…\n/);
    expect(text).toContain('150 descriptions were shortened');
  });

  it('any set of skills fits any budget the intro fits; names that do not fit are counted', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ name: fc.stringMatching(/^[a-z][a-z0-9-]{0,63}$/), description: fc.string({ maxLength: 1100 }), scope: fc.constantFrom('personal' as const, 'repository' as const) }), { maxLength: 400 }), fc.integer({ min: 800, max: 20_000 }), (skills, budget) => {
        const { text, listed } = skillsText(skills, 'skill', budget);
        if (!skills.length) expect(text).toBe('');
        else {
          expect(text.length).toBeLessThanOrEqual(budget);
          if (listed < skills.length) expect(text).toContain(`${skills.length - listed} more skills are not listed`);
        }
      }),
      { numRuns: 200 },
    );
  });
});
