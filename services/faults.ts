// Faults a merchant rule asks for: the class lives with the gateway's other coded errors.
export { SimulatedFault } from '../domain/errors.js';
