import type { ChangeKind as Kind } from '../../domain/changes.js';
import { builder } from './builder.js';

const kinds = ['created', 'updated', 'deleted'] as const satisfies readonly Kind[];

export const ChangeKind = builder.enumType('ChangeKind', { values: kinds });
