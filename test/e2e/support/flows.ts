import type { Page } from 'playwright-core';
import type { UiServer } from './uiServer.ts';

/** Fills and sends the login form (the page must be on /login). */
export const submitLogin = async (page: Page, email: string, password: string): Promise<void> => {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
};

/** Opens the app, signs in and, when the server demands it, chooses `newPassword`; ends on /projects. */
export const signIn = async (page: Page, server: UiServer, email: string, password: string, newPassword?: string): Promise<void> => {
  await page.goto(server.href('/login'));
  await submitLogin(page, email, password);
  if (newPassword !== undefined) {
    await page.waitForURL(/\/change-password/);
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Set password and continue' }).click();
  }
  await page.waitForURL(/\/projects/);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
};

/**
 * Problems a page reported (script errors, CSP violations, 5xx answers), less the 4xx answers the
 * browser logs for refusals the page shows on purpose (a signed-out probe, a duplicate email).
 */
export const unexpectedProblems = (problems: readonly string[]): string[] =>
  problems.filter((p) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(p));
