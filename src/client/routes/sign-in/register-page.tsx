import { SignInScreen } from './sign-in-screen.tsx';

export default function RegisterPage() {
  return <SignInScreen intent="register" />;
}
