import type { Lang } from '@company-data/core/schemas/common';
import { companyStatusCodes, companyStatuses, type ClassifierType } from '@company-data/core/vocabulary';

/** A classifier value with its label in each language (names stay as registered; labels follow lang). */
export interface Entry {
  code: string;
  et: string;
  en: string;
  ru: string;
}

const e = (code: string, et: string, en: string, ru: string): Entry => ({ code, et, en, ru });

export interface LegalForm extends Entry {
  /** Abbreviation accepted by the legal_form filter. */
  abbr: string;
  /** First digit of registry codes of this form. */
  digit: '1' | '7' | '8' | '9';
  /** Relative frequency in the generated dataset. */
  weight: number;
  /** Has shareholders (OSAN / S / partners). */
  owned: boolean;
  accounting: boolean;
}

const lf = (
  abbr: string,
  et: string,
  en: string,
  ru: string,
  digit: LegalForm['digit'],
  weight: number,
  owned: boolean,
  accounting = true,
): LegalForm => ({ code: abbr, abbr, et, en, ru, digit, weight, owned, accounting });

/** Estonian names are what the service uses in filters (legal_form.name). */
export const legalForms: readonly LegalForm[] = [
  lf('OÜ', 'Osaühing', 'Private limited company', 'Общество с ограниченной ответственностью', '1', 70, true),
  lf('AS', 'Aktsiaselts', 'Public limited company', 'Акционерное общество', '1', 4, true),
  lf('TÜ', 'Täisühing', 'General partnership', 'Полное товарищество', '1', 0.5, true),
  lf('UÜ', 'Usaldusühing', 'Limited partnership', 'Коммандитное товарищество', '1', 0.5, true),
  lf('TÜH', 'Tulundusühistu', 'Commercial association', 'Коммерческое товарищество', '1', 0.5, false),
  lf('FIE', 'Füüsilisest isikust ettevõtja', 'Sole proprietor', 'Индивидуальный предприниматель', '1', 6, false, false),
  lf('MTÜ', 'Mittetulundusühing', 'Non-profit association', 'Некоммерческое объединение', '8', 9, false),
  lf('SA', 'Sihtasutus', 'Foundation', 'Целевое учреждение', '9', 1.5, false),
  lf('KÜ', 'Korteriühistu', 'Apartment association', 'Квартирное товарищество', '8', 7, false),
  lf('SE', 'Euroopa äriühing', 'European company', 'Европейское общество', '1', 0.2, true),
  lf('FIL', 'Välismaa äriühingu filiaal', 'Branch of a foreign company', 'Филиал иностранного общества', '1', 0.5, false),
  lf('AV', 'Avalik-õiguslik juriidiline isik', 'Public legal person', 'Юридическое лицо публичного права', '7', 0.3, false),
];

export const statuses: readonly Entry[] = companyStatusCodes.map((code) => ({ code, ...companyStatuses[code] }));

export type Relation = 'representative' | 'shareholder' | 'beneficial_owner' | 'other';

export interface Role extends Entry {
  relation: Relation;
}
const r = (code: string, relation: Relation, et: string, en: string, ru: string): Role => ({ code, relation, et, en, ru });

export const roles: readonly Role[] = [
  r('JUHL', 'representative', 'Juhatuse liige', 'Board member', 'Член правления'),
  r('JUHA', 'representative', 'Ainuisikuline juhatuse liige', 'Sole board member', 'Единоличный член правления'),
  r('JUHE', 'representative', 'Juhatuse esimees', 'Chair of the board', 'Председатель правления'),
  r('PROK', 'representative', 'Prokurist', 'Procurator', 'Прокурист'),
  r('TOSAN', 'shareholder', 'Täisosanik', 'General partner', 'Полный товарищ'),
  r('UOSAN', 'shareholder', 'Usaldusosanik', 'Limited partner', 'Вкладчик'),
  r('OSAN', 'shareholder', 'Osanik', 'Shareholder', 'Участник'),
  r('S', 'shareholder', 'Aktsionär', 'Shareholder (AS)', 'Акционер'),
  r('W', 'beneficial_owner', 'Tegelik kasusaaja', 'Beneficial owner', 'Фактический выгодоприобретатель'),
  r('N', 'other', 'Nõukogu liige', 'Supervisory board member', 'Член совета'),
  r('E', 'other', 'Nõukogu esimees', 'Chair of the supervisory board', 'Председатель совета'),
  r('LIKV', 'other', 'Likvideerija', 'Liquidator', 'Ликвидатор'),
  r('PANKR', 'other', 'Pankrotihaldur', 'Bankruptcy trustee', 'Управляющий в деле о банкротстве'),
  r('A', 'other', 'Asutaja', 'Founder', 'Учредитель'),
  r('D', 'other', 'Audiitorühing', 'Audit firm', 'Аудиторская фирма'),
  r('KISIK', 'other', 'Kontaktisik', 'Contact person', 'Контактное лицо'),
];
export const roleIndex = new Map(roles.map((x, i) => [x.code, i]));

export const counties: readonly Entry[] = [
  ['Harju', 'Harju', 'Харьюмаа'],
  ['Hiiu', 'Hiiu', 'Хийумаа'],
  ['Ida-Viru', 'Ida-Viru', 'Ида-Вирумаа'],
  ['Jõgeva', 'Jõgeva', 'Йыгевамаа'],
  ['Järva', 'Järva', 'Ярвамаа'],
  ['Lääne', 'Lääne', 'Ляэнемаа'],
  ['Lääne-Viru', 'Lääne-Viru', 'Ляэне-Вирумаа'],
  ['Põlva', 'Põlva', 'Пылвамаа'],
  ['Pärnu', 'Pärnu', 'Пярнумаа'],
  ['Rapla', 'Rapla', 'Рапламаа'],
  ['Saare', 'Saare', 'Сааремаа'],
  ['Tartu', 'Tartu', 'Тартумаа'],
  ['Valga', 'Valga', 'Валгамаа'],
  ['Viljandi', 'Viljandi', 'Вильяндимаа'],
  ['Võru', 'Võru', 'Вырумаа'],
].map(([et, en, ru]) => e(`${et} maakond`, `${et} maakond`, `${en} County`, ru!));

export const contactTypes: readonly Entry[] = [
  e('email', 'E-post', 'Email', 'Эл. почта'),
  e('phone', 'Telefon', 'Phone', 'Телефон'),
  e('mobile', 'Mobiiltelefon', 'Mobile', 'Мобильный'),
  e('website', 'Veebileht', 'Website', 'Веб-сайт'),
  e('other', 'Muu', 'Other', 'Другое'),
];

export const annualReportStatuses: readonly Entry[] = [
  e('valid', 'Kehtiv', 'Valid', 'Действующий'),
  e('superseded', 'Asendatud', 'Superseded', 'Заменён'),
  e('overdue', 'Esitamata, tähtaeg möödas', 'Overdue', 'Просрочен'),
  e('not_yet_due', 'Tähtaeg saabumata', 'Not yet due', 'Срок не наступил'),
];

/** Decision: the rating scale between AAA and D (the spec does not show it). */
export const creditRatings: readonly Entry[] = [
  e('AAA', 'Suurepärane', 'Excellent', 'Отлично'),
  e('AA', 'Väga hea', 'Very good', 'Очень хорошо'),
  e('A', 'Hea', 'Good', 'Хорошо'),
  e('BBB', 'Rahuldav', 'Satisfactory', 'Удовлетворительно'),
  e('BB', 'Nõrk', 'Weak', 'Слабо'),
  e('B', 'Halb', 'Poor', 'Плохо'),
  e('C', 'Mitterahuldav', 'Unsatisfactory', 'Неудовлетворительно'),
  e('D', 'Maksejõuetu', 'In default', 'Дефолт'),
];

export const unratedReasons: readonly Entry[] = [
  e('bankrupt', 'Pankrotis', 'Bankrupt', 'Банкрот'),
  e('liquidation', 'Likvideerimisel', 'In liquidation', 'В ликвидации'),
  e('deleted', 'Kustutatud', 'Deleted', 'Удалён'),
  e('not_covered', 'Hindamisele ei kuulu', 'Not covered by the model', 'Не охвачен моделью'),
];

export const scoreRules: readonly Entry[] = [
  e('in_default', 'Makseraskused', 'In default', 'Дефолт'),
  e('inactive', 'Tegevusetu', 'Inactive', 'Неактивен'),
  e('thin_file', 'Vähe andmeid', 'Thin file', 'Мало данных'),
  e('capital_breach', 'Omakapital alla nõutava', 'Equity below the legal minimum', 'Капитал ниже минимума'),
];

export const taxClaimTypes: readonly Entry[] = [
  e('vat', 'Käibemaks', 'Value added tax', 'Налог с оборота'),
  e('income_tax', 'Tulumaks', 'Income tax', 'Подоходный налог'),
  e('social_tax', 'Sotsiaalmaks', 'Social tax', 'Социальный налог'),
  e('unemployment', 'Töötuskindlustusmakse', 'Unemployment insurance', 'Страхование от безработицы'),
  e('pension', 'Kohustuslik kogumispension', 'Funded pension', 'Накопительная пенсия'),
  e('interest', 'Intress', 'Interest', 'Проценты'),
];

export const declarationTypes: readonly Entry[] = [
  e('KMD', 'Käibedeklaratsioon (KMD)', 'VAT return (KMD)', 'Декларация НСО (KMD)'),
  e(
    'TSD',
    'Tulu- ja sotsiaalmaksu deklaratsioon (TSD)',
    'Income and social tax return (TSD)',
    'Декларация подоходного и социального налога (TSD)',
  ),
  e('KMD_INF', 'Käibedeklaratsiooni lisa (KMD INF)', 'VAT return annex (KMD INF)', 'Приложение к декларации НСО (KMD INF)'),
  e('AKS', 'Aktsiisideklaratsioon', 'Excise duty return', 'Акцизная декларация'),
];

export const monitoringCategories: readonly Entry[] = [
  e('registry', 'Registriandmed', 'Registry data', 'Данные регистра'),
  e('people', 'Isikud', 'People', 'Лица'),
  e('tax', 'Maksud', 'Taxes', 'Налоги'),
  e('court', 'Kohtuasjad', 'Court', 'Суд'),
  e('announcements', 'Teadaanded', 'Notices', 'Объявления'),
  e('reports', 'Aruanded', 'Reports', 'Отчёты'),
  e('rating', 'Krediidihinnang', 'Rating', 'Рейтинг'),
  e('assets', 'Vara', 'Assets', 'Активы'),
];

export const ownershipTypes: readonly Entry[] = [
  e('sole', 'Ainuomand', 'Sole ownership', 'Единоличная собственность'),
  e('joint', 'Ühisomand', 'Joint ownership', 'Совместная собственность'),
];

export const relations: readonly Entry[] = [
  e('representative', 'Esindaja', 'Representative', 'Представитель'),
  e('shareholder', 'Osanik', 'Shareholder', 'Участник'),
  e('beneficial_owner', 'Tegelik kasusaaja', 'Beneficial owner', 'Фактический выгодоприобретатель'),
  e('other', 'Muu isik', 'Other party', 'Другое лицо'),
];

export const scoreGroups: readonly Entry[] = [
  e('payment', 'Maksekäitumine', 'Payment behaviour', 'Платёжное поведение'),
  e('financial', 'Finantsnäitajad', 'Financial figures', 'Финансовые показатели'),
  e('background', 'Taust', 'Background', 'Справочная информация'),
  e('activity', 'Aktiivsus', 'Activity', 'Активность'),
];

/** Every classifier served by GET /classifiers/{type}: one table for each of classifierTypes (core/vocabulary.ts). */
export const classifierTables: Record<ClassifierType, readonly Entry[]> = {
  legal_forms: legalForms,
  company_statuses: statuses,
  roles,
  counties,
  contact_types: contactTypes,
  annual_report_statuses: annualReportStatuses,
  credit_ratings: creditRatings,
  unrated_reasons: unratedReasons,
  score_rules: scoreRules,
  tax_claim_types: taxClaimTypes,
  declaration_types: declarationTypes,
  monitoring_categories: monitoringCategories,
  ownership_types: ownershipTypes,
  relations,
};

export function codeLabel(entry: Entry, lang: Lang): { code: string; label: string } {
  return { code: entry.code, label: entry[lang] };
}

/** Small per-language texts used in generated rows (section labels, factor labels). */
export function tr(lang: Lang, et: string, en: string, ru: string): string {
  return lang === 'en' ? en : lang === 'ru' ? ru : et;
}
