/** Logger, console and Session: what the script prints (the test reads it) and who runs it. */
import type { Exec } from './execution-context';
import { Facade } from './facade';
import { UserFacade } from './spreadsheet-app';

/** As the execution log shows a value: text as it is, an object as JSON, an error as "Error: message". */
function show(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toString();
  if (v instanceof Facade) return v._type;
  if (typeof v === 'object' && v !== null) return JSON.stringify(v);
  return String(v);
}

export class LoggerFacade extends Facade {
  readonly _type = 'Logger';
  constructor(private x: Exec) {
    super();
  }
  /** log(data) or log(format, values...) with %s placeholders. */
  log(data: unknown, ...values: unknown[]): LoggerFacade {
    let i = 0;
    this.x.logs.push(values.length ? show(data).replace(/%s/g, () => show(values[i++])) : show(data));
    return this;
  }
  getLog(): string {
    return this.x.logs.join('\n');
  }
  clear(): void {}
}

export class ConsoleFacade extends Facade {
  readonly _type = 'console';
  constructor(private x: Exec) {
    super();
  }
  private print(args: unknown[]): void {
    this.x.logs.push(args.map(show).join(' '));
  }
  log(...args: unknown[]): void {
    this.print(args);
  }
  info(...args: unknown[]): void {
    this.print(args);
  }
  warn(...args: unknown[]): void {
    this.print(args);
  }
  error(...args: unknown[]): void {
    this.print(args);
  }
  time(): void {}
  timeEnd(): void {}
}

export class SessionFacade extends Facade {
  readonly _type = 'Session';
  constructor(private x: Exec) {
    super();
  }
  /** The user whose authority the script runs with: the one who pressed the button, or the trigger's owner. */
  getEffectiveUser(): UserFacade {
    return new UserFacade(this.x.authMode === 'NONE' ? '' : this.x.user);
  }
  getActiveUser(): UserFacade {
    return new UserFacade(this.x.authMode === 'NONE' ? '' : this.x.user);
  }
  getActiveUserLocale(): string {
    return 'en';
  }
  getScriptTimeZone(): string {
    return 'Etc/UTC';
  }
  getTemporaryActiveUserKey(): string {
    return Buffer.from(`${this.x.user}:temporary`).toString('base64url');
  }
}
