/** Server-minted identifiers of signal deliveries (OS CSPRNG); execution ids are minted by the execution module. */
import { randomHex } from '../http/random-hex';

export const newSignalId = (): string => `sig_${randomHex(16)}`;
