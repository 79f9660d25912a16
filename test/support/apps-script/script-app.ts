/**
 * ScriptApp: installable triggers, kept with the world (they persist). Google's limits: 20 triggers per
 * user per script; an add-on may hold one trigger of each type (time-driven, spreadsheet) per user per
 * document, and its time-driven triggers run at most once an hour. A one-off trigger that has run stays
 * in the project's triggers until the script deletes it.
 */
import { MESSAGES, ScriptException } from './errors';
import { SCOPES, type Exec, type TriggerData } from './execution-context';
import { Facade } from './facade';

const HOUR = 3_600_000;
const MAX_TRIGGERS = 20;
export const ADDON_FREQUENCY = 'Add-ons can not create time-based triggers that run more frequently than once per hour.';

export class TriggerFacade extends Facade {
  readonly _type = 'Trigger';
  constructor(readonly _t: TriggerData) {
    super();
  }
  getHandlerFunction(): string {
    return this._t.handler;
  }
  getUniqueId(): string {
    return this._t.uid;
  }
  getTriggerSource(): string {
    return this._t.source;
  }
  getEventType(): string {
    return this._t.eventType;
  }
  getTriggerSourceId(): string | null {
    return this._t.source === 'SPREADSHEETS' ? '1AppsScriptStandinSpreadsheet0000000000000000' : null;
  }
}

function install(x: Exec, t: Omit<TriggerData, 'uid' | 'user'>): TriggerFacade {
  x.require('ScriptApp.newTrigger', SCOPES.scriptApp);
  const mine = x.world.triggerList.filter((o) => o.user === x.user);
  if (mine.length >= MAX_TRIGGERS) throw new ScriptException(MESSAGES.tooManyTriggers);
  if (x.world.addon && mine.some((o) => o.source === t.source)) throw new ScriptException(MESSAGES.tooManyAddonTriggers);
  const data: TriggerData = { ...t, uid: x.world.nextUid(), user: x.user };
  x.world.triggerList.push(data);
  return new TriggerFacade(data);
}

export class ClockTriggerBuilderFacade extends Facade {
  readonly _type = 'ClockTriggerBuilder';
  private dueAt?: number;
  private everyMs?: number;
  constructor(
    private x: Exec,
    private handler: string,
  ) {
    super();
  }
  /** A one-off trigger at least `durationMilliseconds` from now (this stand-in runs it exactly then). */
  after(durationMilliseconds: number): ClockTriggerBuilderFacade {
    if (typeof durationMilliseconds !== 'number')
      throw new ScriptException(MESSAGES.signature('ClockTriggerBuilder', 'after', [durationMilliseconds]));
    this.dueAt = this.x.now() + Math.max(0, durationMilliseconds);
    return this;
  }
  at(date: Date): ClockTriggerBuilderFacade {
    if (!(date instanceof Date)) throw new ScriptException(MESSAGES.signature('ClockTriggerBuilder', 'at', [date]));
    this.dueAt = date.getTime();
    return this;
  }
  everyMinutes(n: number): ClockTriggerBuilderFacade {
    if (![1, 5, 10, 15, 30].includes(n)) throw new ScriptException('The value passed to everyMinutes must be 1, 5, 10, 15 or 30.');
    if (this.x.world.addon) throw new ScriptException(ADDON_FREQUENCY);
    return this.every(n * 60_000);
  }
  everyHours(n: number): ClockTriggerBuilderFacade {
    if (!Number.isInteger(n) || n < 1) throw new ScriptException(MESSAGES.invalidArgument('hours'));
    return this.every(n * HOUR);
  }
  everyDays(n: number): ClockTriggerBuilderFacade {
    if (!Number.isInteger(n) || n < 1) throw new ScriptException(MESSAGES.invalidArgument('days'));
    return this.every(n * 24 * HOUR);
  }
  everyWeeks(n: number): ClockTriggerBuilderFacade {
    if (!Number.isInteger(n) || n < 1) throw new ScriptException(MESSAGES.invalidArgument('weeks'));
    return this.every(n * 7 * 24 * HOUR);
  }
  atHour(): ClockTriggerBuilderFacade {
    return this;
  }
  nearMinute(): ClockTriggerBuilderFacade {
    return this;
  }
  inTimezone(): ClockTriggerBuilderFacade {
    return this;
  }
  private every(ms: number): ClockTriggerBuilderFacade {
    this.everyMs = ms;
    this.dueAt = this.x.now() + ms;
    return this;
  }
  create(): TriggerFacade {
    if (this.dueAt === undefined) throw new ScriptException('Missing a time for the trigger: call after, at or every... before create().');
    return install(this.x, { handler: this.handler, source: 'CLOCK', eventType: 'CLOCK', dueAt: this.dueAt, everyMs: this.everyMs });
  }
}

export class SpreadsheetTriggerBuilderFacade extends Facade {
  readonly _type = 'SpreadsheetTriggerBuilder';
  private eventType = '';
  constructor(
    private x: Exec,
    private handler: string,
  ) {
    super();
  }
  onOpen(): SpreadsheetTriggerBuilderFacade {
    this.eventType = 'ON_OPEN';
    return this;
  }
  onEdit(): SpreadsheetTriggerBuilderFacade {
    this.eventType = 'ON_EDIT';
    return this;
  }
  onChange(): SpreadsheetTriggerBuilderFacade {
    this.eventType = 'ON_CHANGE';
    return this;
  }
  onFormSubmit(): SpreadsheetTriggerBuilderFacade {
    this.eventType = 'ON_FORM_SUBMIT';
    return this;
  }
  create(): TriggerFacade {
    return install(this.x, { handler: this.handler, source: 'SPREADSHEETS', eventType: this.eventType || 'ON_OPEN' });
  }
}

export class TriggerBuilderFacade extends Facade {
  readonly _type = 'TriggerBuilder';
  constructor(
    private x: Exec,
    private handler: string,
  ) {
    super();
  }
  timeBased(): ClockTriggerBuilderFacade {
    return new ClockTriggerBuilderFacade(this.x, this.handler);
  }
  forSpreadsheet(): SpreadsheetTriggerBuilderFacade {
    return new SpreadsheetTriggerBuilderFacade(this.x, this.handler);
  }
}

export class ScriptAppService extends Facade {
  readonly _type = 'ScriptApp';
  constructor(private x: Exec) {
    super();
  }
  override _props() {
    return {
      AuthMode: { NONE: 'NONE', CUSTOM_FUNCTION: 'CUSTOM_FUNCTION', LIMITED: 'LIMITED', FULL: 'FULL' },
      TriggerSource: { SPREADSHEETS: 'SPREADSHEETS', CLOCK: 'CLOCK', FORMS: 'FORMS', DOCUMENTS: 'DOCUMENTS', CALENDAR: 'CALENDAR' },
      EventType: { CLOCK: 'CLOCK', ON_OPEN: 'ON_OPEN', ON_EDIT: 'ON_EDIT', ON_FORM_SUBMIT: 'ON_FORM_SUBMIT', ON_CHANGE: 'ON_CHANGE' },
    };
  }
  newTrigger(functionName: string): TriggerBuilderFacade {
    if (typeof functionName !== 'string') throw new ScriptException(MESSAGES.signature('ScriptApp', 'newTrigger', [functionName]));
    this.x.require('ScriptApp.newTrigger', SCOPES.scriptApp);
    return new TriggerBuilderFacade(this.x, functionName);
  }
  /** The current user's triggers of this project. */
  getProjectTriggers(): TriggerFacade[] {
    this.x.require('ScriptApp.getProjectTriggers', SCOPES.scriptApp);
    return this.x.world.triggerList.filter((t) => t.user === this.x.user).map((t) => new TriggerFacade(t));
  }
  getUserTriggers(): TriggerFacade[] {
    return this.getProjectTriggers();
  }
  deleteTrigger(trigger: TriggerFacade): void {
    this.x.require('ScriptApp.deleteTrigger', SCOPES.scriptApp);
    if (!(trigger instanceof TriggerFacade)) throw new ScriptException(MESSAGES.signature('ScriptApp', 'deleteTrigger', [trigger]));
    const list = this.x.world.triggerList;
    const i = list.findIndex((t) => t.uid === trigger._t.uid && t.user === this.x.user);
    if (i >= 0) list.splice(i, 1);
  }
  getScriptId(): string {
    return '1StandinScriptId000000000000000000000000000000000000000';
  }
  getOAuthToken(): string {
    return `ya29.standin-${this.x.user}`;
  }
}
