import type { INodeType } from 'n8n-workflow';
import { CompanyDataAssets } from '../../nodes/CompanyDataAssets/CompanyDataAssets.node';
import { CompanyDataCompanies } from '../../nodes/CompanyDataCompanies/CompanyDataCompanies.node';
import { CompanyDataFinancials } from '../../nodes/CompanyDataFinancials/CompanyDataFinancials.node';
import { CompanyDataMonitoring } from '../../nodes/CompanyDataMonitoring/CompanyDataMonitoring.node';
import { CompanyDataPeople } from '../../nodes/CompanyDataPeople/CompanyDataPeople.node';
import { CompanyDataReference } from '../../nodes/CompanyDataReference/CompanyDataReference.node';
import { CompanyDataRisk } from '../../nodes/CompanyDataRisk/CompanyDataRisk.node';
import { CompanyDataSavedSearches } from '../../nodes/CompanyDataSavedSearches/CompanyDataSavedSearches.node';
import type { NodeKey } from '../../src/n8n/descriptions/nodes';

/** One instance of each action node, by its key in the node table (the triggers are not action nodes). */
export function actionNodes(): Record<NodeKey, INodeType> {
  return {
    companies: new CompanyDataCompanies(),
    people: new CompanyDataPeople(),
    financials: new CompanyDataFinancials(),
    risk: new CompanyDataRisk(),
    assets: new CompanyDataAssets(),
    monitoring: new CompanyDataMonitoring(),
    searches: new CompanyDataSavedSearches(),
    reference: new CompanyDataReference(),
  };
}
