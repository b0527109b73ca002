import Database from 'better-sqlite3';
import { load } from 'sqlite-vec';
process.stderr.write('imported\n');
const db = new Database(':memory:'); 
process.stderr.write('db\n');
load(db);
process.stderr.write('sqlite ok\n');
