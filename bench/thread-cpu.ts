import { readFileSync } from 'node:fs';

const TICK_US = 1e6 / 100; // USER_HZ: Linux reports thread times in 1/100 s

/**
 * CPU time of this process's main thread alone (JavaScript, the event loop, socket I/O),
 * without V8's background threads (garbage collection helpers, the optimizing compiler).
 * Linux only (NaN elsewhere); a resolution of 10 ms, so read it over seconds.
 */
export function mainThreadCpuUs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state: utime is 14th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return NaN;
  }
}
