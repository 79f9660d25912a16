/** Runs one enrich of a CSV file in its own process, so a test can kill it mid-run (bundled by the test). */
import { CompanyDataClient } from '../../../../packages/company-data/src/index';
import { CsvTable } from '../../../../packages/company-data/src/sheets/csv-table';
import { enrichTable } from '../../../../packages/company-data/src/sheets/enrich';

const client = new CompanyDataClient({ baseUrl: process.env.CHILD_BASE_URL!, apiKey: process.env.CHILD_API_KEY! });
enrichTable({ table: new CsvTable(process.env.CHILD_FILE!), client, stateDir: process.env.CHILD_STATE! })
  .then(() => client.close())
  .catch((e) => {
    process.stderr.write(String(e) + '\n');
    process.exit(1);
  });
