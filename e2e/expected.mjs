// What the enrichment example must write for each row of examples/companies.csv (sandbox seed 1; the
// Lookup at version 3 with its Language option unset, so English, and the best match in flat
// company_data_match_* columns). Names, codes and VAT numbers are the fixtures of docs/sandbox.md.
// The sheet's columns carry the Lookup's own names, as the CLI's enrich writes them, so a sheet reads alike.
/**
 * @param {string} registry_code
 * @param {string} name
 * @param {string} legal_form
 * @param {string} status
 */
const company = (registry_code, name, legal_form, status, vat_number = '') => ({
  company_data_status: 'matched',
  company_data_match_registry_code: registry_code,
  company_data_match_name: name,
  company_data_match_legal_form: legal_form,
  company_data_match_status_label: status,
  company_data_match_vat_number: vat_number,
  company_data_reason: '',
});
/** @param {string} status */
const none = (status, reason = '') => ({
  company_data_status: status,
  company_data_match_registry_code: '',
  company_data_match_name: '',
  company_data_match_legal_form: '',
  company_data_match_status_label: '',
  company_data_match_vat_number: '',
  company_data_reason: reason,
});

const active = company('13545698', 'Lõunaranna Tarkvara OÜ', 'Private limited company', 'Registered', 'EE102224658');
const largeAs = company('10022830', 'Põhjakalda Energia AS', 'Public limited company', 'Registered', 'EE101151683');
const bankrupt = company('12623091', 'Raudsillu Ehitus OÜ', 'Private limited company', 'Bankrupt', 'EE102054475');
const renamed = company('13391137', 'Sõstrakalda Grupp OÜ', 'Private limited company', 'Registered', 'EE100900990');

export const expectedEnrichment = [
  active, // 13545698
  largeAs, // 10022830
  company('13922184', 'Haavalepiku Kaubandus OÜ', 'Private limited company', 'In liquidation', 'EE102992715'),
  bankrupt, // 12623091
  company('12273720', 'Kuusetagu Logistika OÜ', 'Private limited company', 'Deleted'), // VAT ended with the deletion
  active, // by VAT number
  bankrupt, // VAT number without EE
  // VAT group: the first registered member, with the lookup's own status word and the number of holders
  {
    ...company('11750537', 'Mereranna Invest AS', 'Public limited company', 'Registered', 'EE100786208'),
    company_data_status: 'vat_group',
    company_data_reason: '3 holders',
  },
  { ...company('14370568', 'Allikaoru Disain OÜ', 'Private limited company', 'Registered'), company_data_reason: 'last VAT holder' }, // VAT ended: found, no current VAT number
  active, // name without the legal form
  renamed, // an earlier name
  largeAs, // exact name
  active, // duplicate
  renamed, // spaces around the code
  none('invalid', 'registry code has a wrong check digit (last digit)'),
  none('invalid', 'VAT number has a wrong check digit (last digit)'),
  none('skipped', 'needs a word of 3 or more characters'),
  company('14867464', 'Koidumetsa Ehitus AS', 'Public limited company', 'Registered'), // common word: the first of many
  none('no_match'),
  none('no_match'),
  company('14397283', 'Kaseranna Tarkvara OÜ', 'Private limited company', 'Registered', 'EE102058989'),
  company('14589195', 'Vahtramäe Tehnika AS', 'Public limited company', 'Registered', 'EE100041383'),
  company('80229797', 'Kanarbikuvainu Selts MTÜ', 'Non-profit association', 'Registered'),
  company('90746306', 'Sihtasutus Tähevälja Fond', 'Foundation', 'Registered'),
  company('80655301', 'Korteriühistu Järvevana tee 181', 'Apartment association', 'Registered'),
  company('14579081', 'Koiduveski Meedia OÜ', 'Private limited company', 'Registered', 'EE100310483'),
  company('12007970', 'Tuulenurme Auto OÜ', 'Private limited company', 'Registered', 'EE102809358'),
  company('14091288', 'Kivikoja Sisustus OÜ', 'Private limited company', 'Registered', 'EE101500496'),
  company('11586925', 'Hõbekalda Holding AS', 'Public limited company', 'Registered', 'EE101120669'),
  largeAs, // duplicate name
];
