import type { Route } from '../route.js';
import * as categories from './categories.js';
import * as inventory from './inventory.js';
import * as orders from './orders.js';
import * as pets from './pets.js';

/** The resource routes of the REST façade, in the order of the document. */
export const routes: readonly Route[] = [
  pets.listPets,
  pets.createPet,
  pets.getPetById,
  pets.replacePet,
  pets.deletePet,
  categories.listCategories,
  categories.createCategory,
  categories.getCategory,
  categories.replaceCategory,
  categories.deleteCategory,
  orders.listOrders,
  orders.placeOrder,
  orders.getOrder,
  orders.updateOrder,
  orders.cancelOrder,
  inventory.listInventory,
  inventory.getInventoryItem,
  inventory.updateInventory,
];
