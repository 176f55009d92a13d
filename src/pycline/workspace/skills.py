"""Skills: folders holding a `SKILL.md` whose front matter names and describes the skill.

Looked for in the workspace (`.clinerules/skills/`, `.cline/skills/`, `.claude/skills/`,
`.agents/skills/`) and in the global skills folders. A skill is `<folder>/<name>/SKILL.md`; its
`name` must equal the folder's name (else it is skipped, as in Cline), and a global skill wins
over a workspace skill of the same name. The system prompt lists each skill in one line; the
model loads one's instructions with `use_skill`.

A skill is read only where it lies: a workspace skill (its folder or its `SKILL.md`) that is a
link out of the workspace, or a global one out of its skills folder, is not a skill.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from pycline.workspace.confined import read_text
from pycline.workspace.rules import split_front_matter

PROJECT_DIRS: Final = (".clinerules/skills", ".cline/skills", ".claude/skills", ".agents/skills")
MAX_SKILL_CHARS: Final = 100_000


@dataclass(frozen=True, slots=True)
class Skill:
    name: str
    description: str
    path: Path  # the SKILL.md file
    root: Path | None = None  # the folder it must resolve inside (workspace, or skills folder)

    def body(self) -> str:
        text = read_text(self.path, MAX_SKILL_CHARS, root=self.root)
        return split_front_matter(text)[1].strip()


def discover_skills(
    root: Path,
    global_dirs: Sequence[Path] = (),
    *,
    toggles: Mapping[str, bool] | None = None,
) -> list[Skill]:
    """The enabled skills, by name. `toggles` maps a SKILL.md path to whether it is on."""
    found: dict[str, Skill] = {}
    places = [(root / d, root) for d in PROJECT_DIRS] + [(d, d) for d in global_dirs]
    for folder, confine in places:
        for skill in _skills_in(folder, confine):
            if toggles and not toggles.get(str(skill.path), True):
                continue
            found[skill.name] = skill  # later folders (global) win
    return sorted(found.values(), key=lambda s: s.name)


def _skills_in(folder: Path, confine: Path) -> list[Skill]:
    try:
        children = sorted(p for p in folder.iterdir() if p.is_dir())
    except OSError:
        return []
    skills = []
    for child in children:
        file = child / "SKILL.md"
        try:
            text = read_text(file, MAX_SKILL_CHARS, root=confine)
        except OSError:  # missing, unreadable, or a link out of where it must be
            continue
        front, _ = split_front_matter(text)
        if front is None:
            continue
        name = " ".join(front.get("name", []))
        description = " ".join(front.get("description", []))
        if name != child.name or not description:
            continue
        skills.append(Skill(name, description, file, confine))
    return skills


def skills_prompt(skills: Sequence[Skill]) -> str:
    """The system prompt's compact SKILLS section ("" without skills)."""
    if not skills:
        return ""
    lines = [f'  - "{s.name}": {s.description}' for s in skills]
    return (
        "# SKILLS\nSkills are instructions for particular jobs, loaded on demand:\n"
        + "\n".join(lines)
        + "\nWhen a task matches a skill, call use_skill with its name first, then follow the "
        "instructions it returns."
    )
