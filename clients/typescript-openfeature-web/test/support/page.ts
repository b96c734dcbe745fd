// The page's script: the browser build of the client, the web SDK and the provider, bundled by
// the test with esbuild as an application would bundle them.
import { Arbiter } from '@arbiter/client';
import { OpenFeature, ProviderEvents } from '@openfeature/web-sdk';
import { ArbiterWebProvider } from '../../src/index.ts';

Object.assign(window, { Arbiter, OpenFeature, ProviderEvents, ArbiterWebProvider, loaded: true });
