/** The sentences moved to the core so the Sheets sync writes the same text; kept here for existing imports. */
export * from '@company-data/core/event-summary';
