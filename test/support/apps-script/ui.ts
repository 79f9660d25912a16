/** Ui (menus, sidebars, alerts), HtmlService and HtmlOutput: what a test can see of the sheet's interface. */
import { MESSAGES, ScriptException } from './errors';
import { SCOPES, type Exec } from './execution-context';
import { Facade } from './facade';

export class UiFacade extends Facade {
  readonly _type = 'Ui';
  constructor(private x: Exec) {
    super();
  }
  override _props() {
    return {
      Button: { OK: 'OK', CANCEL: 'CANCEL', YES: 'YES', NO: 'NO', CLOSE: 'CLOSE' },
      ButtonSet: { OK: 'OK', OK_CANCEL: 'OK_CANCEL', YES_NO: 'YES_NO', YES_NO_CANCEL: 'YES_NO_CANCEL' },
    };
  }
  createMenu(caption: string): MenuFacade {
    return new MenuFacade(this.x, String(caption));
  }
  /** An add-on's menu sits under Extensions with the add-on's name. */
  createAddonMenu(): MenuFacade {
    return new MenuFacade(this.x, 'Add-on');
  }
  showSidebar(html: HtmlOutputFacade): void {
    this.x.require('Ui.showSidebar', SCOPES.containerUi);
    this.x.world.ui.sidebars.push({ user: this.x.user, title: html.getTitle(), html: html.getContent() });
  }
  showModalDialog(html: HtmlOutputFacade, title: string): void {
    this.x.require('Ui.showModalDialog', SCOPES.containerUi);
    this.x.world.ui.dialogs.push({ user: this.x.user, title: String(title), html: html.getContent() });
  }
  showModelessDialog(html: HtmlOutputFacade, title: string): void {
    this.showModalDialog(html, title);
  }
  /** A test has no person to press a button: the alert is recorded and answered with OK. */
  alert(...args: unknown[]): string {
    this.x.world.ui.alerts.push(args.filter((a) => typeof a === 'string').join(': '));
    return 'OK';
  }
}

export class MenuFacade extends Facade {
  readonly _type = 'Menu';
  private items: { caption: string; functionName: string }[] = [];
  constructor(
    private x: Exec,
    private name: string,
  ) {
    super();
  }
  addItem(caption: string, functionName: string): MenuFacade {
    this.items.push({ caption: String(caption), functionName: String(functionName) });
    return this;
  }
  addSeparator(): MenuFacade {
    return this;
  }
  addSubMenu(menu: MenuFacade): MenuFacade {
    this.items.push(...menu.items);
    return this;
  }
  addToUi(): void {
    const menus = this.x.world.ui.menus;
    const at = menus.findIndex((m) => m.name === this.name);
    const menu = { name: this.name, items: [...this.items] };
    if (at >= 0) menus[at] = menu;
    else menus.push(menu);
  }
}

export class HtmlOutputFacade extends Facade {
  readonly _type = 'HtmlOutput';
  private title = '';
  constructor(private content: string) {
    super();
  }
  getContent(): string {
    return this.content;
  }
  setContent(c: string): HtmlOutputFacade {
    this.content = String(c);
    return this;
  }
  append(c: string): HtmlOutputFacade {
    this.content += String(c);
    return this;
  }
  getTitle(): string {
    return this.title;
  }
  setTitle(t: string): HtmlOutputFacade {
    this.title = String(t);
    return this;
  }
  setWidth(): HtmlOutputFacade {
    return this;
  }
  setHeight(): HtmlOutputFacade {
    return this;
  }
  setSandboxMode(): HtmlOutputFacade {
    return this;
  }
  setXFrameOptionsMode(): HtmlOutputFacade {
    return this;
  }
  addMetaTag(): HtmlOutputFacade {
    return this;
  }
}

export class HtmlTemplateFacade extends Facade {
  readonly _type = 'HtmlTemplate';
  constructor(private source: string) {
    super();
  }
  getRawContent(): string {
    return this.source;
  }
  /** Scriptlets (<?= ?>) are not evaluated by this stand-in: a template that holds one is refused. */
  evaluate(): HtmlOutputFacade {
    if (/<\?/.test(this.source)) throw new ScriptException('stand-in: template scriptlets are not supported');
    return new HtmlOutputFacade(this.source);
  }
}

export class HtmlServiceFacade extends Facade {
  readonly _type = 'HtmlService';
  constructor(private x: Exec) {
    super();
  }
  override _props() {
    return {
      SandboxMode: { IFRAME: 'IFRAME', NATIVE: 'NATIVE', EMULATED: 'EMULATED' },
      XFrameOptionsMode: { ALLOWALL: 'ALLOWALL', DEFAULT: 'DEFAULT' },
    };
  }
  private file(name: string): string {
    const html = this.x.world.htmlFiles.get(String(name).replace(/\.html$/, ''));
    if (html === undefined) throw new ScriptException(`No HTML file named ${name} was found.`);
    return html;
  }
  createHtmlOutput(html?: string): HtmlOutputFacade {
    return new HtmlOutputFacade(html === undefined ? '' : String(html));
  }
  createHtmlOutputFromFile(name: string): HtmlOutputFacade {
    return new HtmlOutputFacade(this.file(name));
  }
  createTemplate(html: string): HtmlTemplateFacade {
    return new HtmlTemplateFacade(String(html));
  }
  createTemplateFromFile(name: string): HtmlTemplateFacade {
    return new HtmlTemplateFacade(this.file(name));
  }
}

export { MESSAGES };
