export const userStream = (userId: string): string => `user-${userId}`;
