import { petStatuses } from '../../domain/pets.js';
import { builder } from './builder.js';

export const PetStatus = builder.enumType('PetStatus', { values: petStatuses });
