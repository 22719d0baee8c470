import { DomainError } from '../errors.ts';

export const projectNotFound = (what: string): DomainError =>
  new DomainError('project_not_found', `Project ${what} not found`, 'not_found');
