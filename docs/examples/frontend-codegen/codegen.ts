import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * A frontend app's GraphQL Code Generator setup: typed documents from the gateway's published
 * schema. Run from this folder: `npx graphql-codegen --config codegen.ts`. In an app of your own,
 * point `schema` at a copy of schema/schema.graphql or at a running gateway's /graphql.
 * Deploy src/generated/persisted-documents.json with the gateway (PERSISTED_OPERATIONS_ONLY).
 */
const config: CodegenConfig = {
  schema: '../../../schema/schema.graphql',
  documents: ['src/**/*.ts', '!src/generated/**'],
  ignoreNoDocuments: false,
  generates: {
    'src/generated/': {
      preset: 'client',
      config: {
        // Plain strings: sent with fetch as they are, no GraphQL library needed at run time.
        documentMode: 'string',
        emitLegacyCommonJSImports: false,
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', ID: 'string' },
      },
      presetConfig: {
        fragmentMasking: false,
        // Also writes src/generated/persisted-documents.json (hash -> document): the manifest a
        // gateway started with PERSISTED_OPERATIONS_ONLY runs, and nothing else. Each document
        // carries its hash (`__meta__.hash`), which the app sends instead of the text.
        persistedDocuments: { hashAlgorithm: 'sha256' },
      },
    },
  },
};

export default config;
