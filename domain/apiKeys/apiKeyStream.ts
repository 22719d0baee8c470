export const apiKeyStream = (keyId: string): string => `apikey-${keyId}`;
