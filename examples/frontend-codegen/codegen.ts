import type { CodegenConfig } from '@graphql-codegen/cli';

/**
 * A frontend app's GraphQL Code Generator setup: typed documents from the gateway's published
 * schema. Run from this folder: `npx graphql-codegen --config codegen.ts`. In an app of your own,
 * point `schema` at a copy of schema/schema.graphql or at a running gateway's /graphql.
 */
const config: CodegenConfig = {
  schema: '../../schema/schema.graphql',
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
      presetConfig: { fragmentMasking: false },
    },
  },
};

export default config;
