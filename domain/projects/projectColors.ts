/** Phoenix's defaults for a new project's gradient, so the UI shows the same colours. */
export const DEFAULT_GRADIENT_START_COLOR = '#5bdbff';
export const DEFAULT_GRADIENT_END_COLOR = '#1c76fc';

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

export const isHexColor = (value: string): boolean => HEX_COLOR.test(value);
