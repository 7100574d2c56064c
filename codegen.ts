import type { CodegenConfig } from '@graphql-codegen/cli';

/** Typed documents for the tests, generated from the published SDL (`npm run codegen`). */
const config: CodegenConfig = {
  schema: 'schema/schema.graphql',
  documents: ['test/**/*.ts', '!test/generated/**'],
  ignoreNoDocuments: false,
  generates: {
    'test/generated/': {
      preset: 'client',
      config: {
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
