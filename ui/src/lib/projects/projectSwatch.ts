/** The colours a project gets when it is created without any (domain/projects/projectColors.ts). */
const DEFAULT_START = '#5bdbff';
const DEFAULT_END = '#1c76fc';

/**
 * The two colours of a project's swatch. Projects created by their first span never choose any,
 * so all would wear the same default: those get a hue from their name instead (the same name,
 * the same colour, on every page and reload). Colours someone chose are kept as they are.
 */
export const projectSwatch = (project: {
  readonly name: string;
  readonly gradientStartColor: string;
  readonly gradientEndColor: string;
}) => {
  const start = project.gradientStartColor.toLowerCase();
  const end = project.gradientEndColor.toLowerCase();
  if (start !== DEFAULT_START || end !== DEFAULT_END) return { start: project.gradientStartColor, end: project.gradientEndColor };
  // FNV-1a over the name's UTF-16 units: cheap, and neighbouring names land far apart.
  let hash = 0x811c9dc5;
  for (let i = 0; i < project.name.length; i += 1) hash = Math.imul(hash ^ project.name.charCodeAt(i), 0x01000193) >>> 0;
  const hue = hash % 360;
  return { start: `hsl(${hue} 80% 66%)`, end: `hsl(${(hue + 35) % 360} 75% 46%)` };
};
