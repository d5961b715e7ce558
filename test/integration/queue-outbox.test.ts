import { outboxContract } from '../contracts/queue.contract.js';
import { redisForFile } from '../helpers/redis-file.js';

const shared = redisForFile();

outboxContract('standalone redis-server', () => shared.connect);
