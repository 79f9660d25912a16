/**
 * The spreadsheet addresses and IDs people paste, and what each must give: the one table the CLI's
 * --spreadsheet and the n8n node's Spreadsheet field are both tested against.
 */
export const ID = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms';

/** [what is pasted, the spreadsheet ID it names] */
export const accepted: ReadonlyArray<readonly [string, string]> = [
  [ID, ID],
  [`  ${ID}\n`, ID],
  ['sheet-credentials-000001', 'sheet-credentials-000001'],
  ['leads', 'leads'],
  [`https://docs.google.com/spreadsheets/d/${ID}`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/edit`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/edit#gid=0`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/edit#gid=1234567890`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/edit?usp=sharing`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/edit?usp=sharing&ouid=10987654321#gid=12`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}?usp=drive_link`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}#gid=5`, ID],
  [`https://docs.google.com/spreadsheets/d/${ID}/view`, ID],
  [`https://docs.google.com/spreadsheets/u/0/d/${ID}/edit`, ID],
  [`https://docs.google.com/spreadsheets/u/12/d/${ID}/edit?usp=sharing`, ID],
  [`https://docs.google.com/a/example.ee/spreadsheets/d/${ID}/edit`, ID],
  [`https://drive.google.com/file/d/${ID}/view?usp=sharing`, ID],
  [`https://drive.google.com/file/u/1/d/${ID}/view`, ID],
  [`http://docs.google.com/spreadsheets/d/${ID}/edit`, ID],
  [`docs.google.com/spreadsheets/d/${ID}/edit#gid=0`, ID],
  [` https://docs.google.com/spreadsheets/d/${ID}/edit `, ID],
];

/** [what is pasted, a part of the rule the refusal names] */
export const refused: ReadonlyArray<readonly [string, RegExp]> = [
  ['', /is empty/],
  ['   ', /is empty/],
  ['Sales leads 2026', /is not a spreadsheet ID: an ID has only letters, digits, - and _/],
  [`${ID}!`, /is not a spreadsheet ID/],
  ['https://example.com/spreadsheets/d/abc/edit', /is not a Google Sheets address/],
  [`https://docs.google.com.evil.ee/spreadsheets/d/${ID}/edit`, /is not a Google Sheets address/],
  [`https://docs.google.com/document/d/${ID}/edit`, /is not a Google Sheets address/],
  [`https://docs.google.com/presentation/d/${ID}/edit`, /is not a Google Sheets address/],
  ['https://docs.google.com/spreadsheets/u/0/', /is not a Google Sheets address/],
  ['https://docs.google.com/spreadsheets/d/', /is not a Google Sheets address/],
  [`https://drive.google.com/drive/folders/${ID}`, /is not a Google Sheets address/],
  [`https://docs.google.com/spreadsheets/d/e/2PACX-1vQ${ID}/pubhtml`, /published-to-web address/],
  [`ftp://docs.google.com/spreadsheets/d/${ID}/edit`, /is not a Google Sheets address/],
  [`https://docs.google.com/spreadsheets/d/${ID} and more`, /is not a Google Sheets address/],
  [`see https://docs.google.com/spreadsheets/d/${ID}/edit`, /is not a Google Sheets address/],
];
